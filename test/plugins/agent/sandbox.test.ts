import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectTestCommand } from '../../../plugins/agent/sandbox/detect.js';
import { bwrapWorks, isRoot, unshareWorks } from '../../../plugins/agent/sandbox/isolation.js';
import { Sandbox, type SandboxConfig } from '../../../plugins/agent/sandbox/run.js';
import { tempDir } from '../../helpers/app.js';

function project(files: Record<string, string>): string {
  const dir = tempDir('tessera-sbx-src-');
  chmodSync(dir, 0o755);
  for (const [f, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    writeFileSync(path.join(dir, f), text);
  }
  return dir;
}

const sandboxRoot = path.join(tempDir('tessera-sbx-'), 'runs');
chmodSync(path.dirname(sandboxRoot), 0o755);
const secretDir = tempDir('tessera-sbx-secret-');
const keyFile = path.join(secretDir, 'agent-secrets.key');
writeFileSync(keyFile, 'the-service-key', { mode: 0o600 });
/** A world-readable file in a directory the sandbox is told to hide (outside /tmp, which bwrap replaces anyway). */
const publicSecretDir = mkdtempSync(path.join('/var/tmp', 'tessera-sbx-hidden-'));
chmodSync(publicSecretDir, 0o755);
writeFileSync(path.join(publicSecretDir, 'token'), 'world-readable', { mode: 0o644 });
const config = (over: Partial<SandboxConfig> = {}): SandboxConfig => ({
  mode: 'auto',
  dir: sandboxRoot,
  timeoutMs: 60_000,
  memoryMb: 512,
  maxProcesses: 64,
  maxOutputBytes: 200_000,
  maxFileMb: 10,
  uid: 65534,
  gid: 65534,
  hide: [secretDir, keyFile, publicSecretDir],
  ...over,
});

describe('test command detection', () => {
  it('finds pytest, npm test, node --test and go test, and nothing in a repository without tests', () => {
    expect(detectTestCommand(project({ 'tests/test_a.py': 'def test_a(): pass\n' }))?.runner).toBe('pytest');
    expect(detectTestCommand(project({ 'pyproject.toml': '[tool.pytest.ini_options]\n' }))?.runner).toBe('pytest');
    expect(detectTestCommand(project({ 'package.json': '{"scripts":{"test":"node --test"}}' }))).toEqual({
      runner: 'npm test',
      argv: ['npm', 'test', '--silent'],
    });
    expect(
      detectTestCommand(project({ 'package.json': '{"scripts":{"test":"echo \\"Error: no test specified\\" && exit 1"}}', 'src/a.test.mjs': '' }))?.runner,
    ).toBe('node --test');
    expect(detectTestCommand(project({ 'go.mod': 'module x\n' }))?.argv).toEqual(['go', 'test', './...']);
    expect(detectTestCommand(project({ 'README.md': '# x' }))).toBeUndefined();
  });
});

/** A pytest file that tries to escape and prints what happened to each attempt. */
const escapeTest = (servicePid: number, outside: string, source: string, port: number) => `
import os, socket, stat

def attempt(label, fn):
    try:
        fn()
        print(label + "=ALLOWED", flush=True)
    except Exception as e:
        print(label + "=DENIED " + type(e).__name__, flush=True)

def test_escape():
    print("ENV_SECRET=" + str(os.environ.get("TESSERA_SANDBOX_SECRET")), flush=True)
    print("ENV_KEYS=" + ",".join(sorted(os.environ.keys())), flush=True)
    print("UID=" + str(os.getuid()), flush=True)
    print("COPY_MODE=" + oct(stat.S_IMODE(os.stat(os.path.dirname(os.getcwd())).st_mode)), flush=True)
    attempt("PROC_ENVIRON", lambda: open("/proc/${servicePid}/environ").read())
    attempt("KEY_FILE", lambda: open(${JSON.stringify(keyFile)}).read())
    attempt("WRITE_OUTSIDE", lambda: open(${JSON.stringify(path.join(outside, 'pwned'))}, "w").write("x"))
    attempt("WRITE_SOURCE", lambda: open(${JSON.stringify(path.join(source, 'pwned'))}, "w").write("x"))
    attempt("HIDDEN_READ", lambda: open(${JSON.stringify(path.join(publicSecretDir, 'token'))}).read())
    attempt("NETWORK", lambda: socket.create_connection(("127.0.0.1", ${port}), timeout=2))
    open("inside.txt", "w").write("ok")
`;

describe('sandboxed test runs', () => {
  let server: Server;
  let port: number;
  const hits: string[] = [];
  beforeAll(async () => {
    process.env.TESSERA_SANDBOX_SECRET = 'sk-service-secret';
    server = createServer((req, res) => {
      hits.push(req.url ?? '');
      res.end('hi');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => {
    rmSync(publicSecretDir, { recursive: true, force: true });
    delete process.env.TESSERA_SANDBOX_SECRET;
    server.close();
  });

  it('runs a passing and a failing pytest suite in a copy and reports the outcome and output', async () => {
    const sb = new Sandbox(config());
    const src = project({
      'calc.py': 'def add(a, b):\n    return a + b\n',
      'tests/test_calc.py': 'from calc import add\n\ndef test_add():\n    assert add(2, 2) == 4\n',
    });
    const pass = await sb.run({ tenant: 't', user: 'u', source: src });
    expect(pass).toMatchObject({ ok: true, runner: 'pytest', exitCode: 0, limit: null, outputTruncated: false });
    expect(pass.output).toMatch(/1 passed/);
    const fail = await sb.run({ tenant: 't', user: 'u', source: src, files: new Map([['calc.py', 'def add(a, b):\n    return a - b\n']]) });
    expect(fail).toMatchObject({ ok: false, runner: 'pytest', exitCode: 1, limit: null });
    expect(fail.output).toMatch(/1 failed/);
    expect(fail.output).toContain('assert 0 == 4');
  });

  it('runs node --test suites', async () => {
    const sb = new Sandbox(config());
    const src = project({
      'test/a.test.mjs': "import test from 'node:test';\nimport assert from 'node:assert';\ntest('adds', () => assert.equal(1 + 1, 3));\n",
    });
    const r = await sb.run({ tenant: 't', user: 'u', source: src });
    expect(r).toMatchObject({ ok: false, runner: 'node --test', exitCode: 1 });
    expect(r.output).toMatch(/# fail 1/);
  });

  const modes = [
    ['bwrap', bwrapWorks(isRoot() ? 65534 : undefined, isRoot() ? 65534 : undefined)],
    ['unshare', unshareWorks()],
    ['process', true],
  ] as const;
  for (const [mode, available] of modes) {
    it.skipIf(!available)(`${mode} mode: a test cannot read the service's environment, key file or process, nor write outside its copy`, async () => {
      const sb = new Sandbox(config({ mode }));
      const outside = tempDir('tessera-sbx-outside-');
      chmodSync(outside, 0o755);
      const src = project({});
      writeFileSync(path.join(src, 'test_escape.py'), escapeTest(process.pid, outside, src, port));
      const before = hits.length;
      const r = await sb.run({ tenant: 't', user: 'u', source: src, command: ['python3', '-m', 'pytest', '-q', '-s', '-p', 'no:cacheprovider'] });
      expect(r.output).toMatch(/1 passed/);
      expect(r.isolation.mode).toBe(mode);
      expect(r.output).toContain('ENV_SECRET=None');
      // PWD is bwrap's, PYTEST_CURRENT_TEST pytest's own
      const keys = /ENV_KEYS=(\S+)/
        .exec(r.output)![1]!
        .split(',')
        .filter((k) => k !== 'PWD' && k !== 'PYTEST_CURRENT_TEST');
      expect(keys).toEqual(['CI', 'HOME', 'LANG', 'NO_COLOR', 'PATH', 'PYTHONDONTWRITEBYTECODE', 'TMPDIR']);
      expect(r.output).toMatch(/PROC_ENVIRON=DENIED/);
      expect(r.output).toMatch(/KEY_FILE=DENIED/);
      expect(r.output).toMatch(/WRITE_OUTSIDE=DENIED/);
      expect(r.output).toMatch(/WRITE_SOURCE=DENIED/);
      expect(r.output).toContain('COPY_MODE=0o700');
      expect(existsSync(path.join(outside, 'pwned'))).toBe(false);
      expect(existsSync(path.join(src, 'inside.txt'))).toBe(false);
      expect(existsSync(path.join(src, 'pwned'))).toBe(false);
      // bwrap hides listed paths; the other modes only have the uid's permissions, and this file is world-readable
      expect(r.output).toMatch(r.isolation.filesystem === 'read-only-root' ? /HIDDEN_READ=DENIED/ : /HIDDEN_READ=ALLOWED/);
      if (isRoot()) expect(r.output).toContain('UID=65534');
      if (r.isolation.network === 'none') {
        expect(r.output).toMatch(/NETWORK=DENIED/);
        expect(hits.length).toBe(before);
      } else expect(r.output).toMatch(/NETWORK=ALLOWED/);
    });
  }

  it('removes the copy after the run', async () => {
    const sb = new Sandbox(config());
    const src = project({ 'test_cwd.py': 'import os\n\ndef test_cwd():\n    print("CWD=" + os.getcwd())\n' });
    const r = await sb.run({ tenant: 't', user: 'u', source: src, command: ['python3', '-m', 'pytest', '-q', '-s', '-p', 'no:cacheprovider'] });
    const cwd = /CWD=(\S+)/.exec(r.output)![1]!;
    expect(cwd.startsWith(sandboxRoot)).toBe(true);
    expect(existsSync(cwd)).toBe(false);
  });

  it('ends a run at its time limit and at its output limit', async () => {
    const slow = await new Sandbox(config({ timeoutMs: 1500 })).run({ tenant: 't', user: 'u', source: project({}), command: ['sleep', '30'] });
    expect(slow).toMatchObject({ ok: false, limit: 'time', exitCode: null, signal: 'SIGKILL' });
    expect(slow.durationMs).toBeLessThan(10_000);
    const loud = await new Sandbox(config({ maxOutputBytes: 5000 })).run({
      tenant: 't',
      user: 'u',
      source: project({}),
      command: ['sh', '-c', 'yes loud | head -c 100000; sleep 30'],
    });
    expect(loud).toMatchObject({ ok: false, limit: 'output', outputTruncated: true });
    expect(loud.output.length).toBe(5000);
  });

  it('enforces the memory limit', async () => {
    const r = await new Sandbox(config({ memoryMb: 64 })).run({
      tenant: 't',
      user: 'u',
      source: project({}),
      command: ['python3', '-c', 'x = bytearray(512 * 1024 * 1024); print("allocated")'],
    });
    expect(r.ok).toBe(false);
    expect(r.output).toContain('MemoryError');
    expect(r.output).not.toContain('allocated');
  });

  it.skipIf(!isRoot())('enforces the process limit of the run uid', async () => {
    const r = await new Sandbox(config({ maxProcesses: 8 })).run({
      tenant: 't',
      user: 'u',
      source: project({}),
      command: ['sh', '-c', 'for i in $(seq 1 30); do sleep 5 & done; wait; echo done'],
    });
    expect(r.output).toMatch(/fork|Resource temporarily unavailable|Cannot/i);
  });
});

describe('sandbox directory', () => {
  it.skipIf(!isRoot())('refuses a sandbox directory the dropped uid cannot reach, saying why', async () => {
    const hidden = path.join(tempDir('tessera-sbx-private-'), 'runs');
    await expect(new Sandbox(config({ dir: hidden })).run({ tenant: 't', user: 'u', source: project({}), command: ['true'] })).rejects.toThrow(
      /not reachable by uid 65534: every parent directory must be searchable by others/,
    );
  });
});
