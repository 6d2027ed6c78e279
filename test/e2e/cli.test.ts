import { execFileSync, spawnSync } from 'node:child_process';
import { writeFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fixturesDir, json, repoRoot, tempDir } from '../helpers/app.js';
import { cliPath, listeningUrls, runCli, type CliProcess } from '../helpers/cli.js';

function writeManifest(dir: string, manifest: Record<string, unknown>): string {
  const file = path.join(dir, 'manifest.json');
  // Plugin paths are relative to the manifest: point them back at the fixtures.
  const plugins = Object.fromEntries(
    Object.entries((manifest.plugins ?? {}) as Record<string, { module: string }>).map(([k, v]) => [k, { ...v, module: path.join(fixturesDir, v.module) }]),
  );
  writeFileSync(file, JSON.stringify({ name: 'cli-test', dataDir: './data', ...manifest, plugins }));
  return file;
}

const kitchenManifest = {
  listeners: [{ name: 'main', port: 0, plugins: ['kitchen'] }],
  plugins: { kitchen: { module: 'plugins/kitchen/index.js' } },
};

describe('tessera CLI', () => {
  const running: CliProcess[] = [];
  const dirs: string[] = [];
  afterEach(() => {
    for (const cli of running.splice(0)) cli.child.kill('SIGKILL');
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const dir = (): string => {
    const d = tempDir();
    dirs.push(d);
    return d;
  };

  it('prints usage for --help and the package version for --version', () => {
    const help = spawnSync(process.execPath, [cliPath, '--help'], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('Usage: tessera <command> [options]');
    expect(help.stdout).toContain('--manifest FILE');
    const version = execFileSync(process.execPath, [cliPath, '--version'], { encoding: 'utf8' });
    const pkg = JSON.parse(execFileSync('cat', [path.join(repoRoot, 'package.json')], { encoding: 'utf8' })) as { version: string };
    expect(version.trim()).toBe(pkg.version);
  });

  it('exits 2 with usage on an unknown flag or command', () => {
    const flag = spawnSync(process.execPath, [cliPath, 'serve', '--prot', '80'], { encoding: 'utf8' });
    expect(flag.status).toBe(2);
    expect(flag.stderr).toContain(
      'Unknown option "--prot". Options are --manifest, --data-dir, --workflows, --port, --db-path, --protect-invoke, --help and --version.',
    );
    // Quotes in the message are balanced.
    expect((flag.stderr.split('\n')[0]!.match(/"/g) ?? []).length % 2).toBe(0);
    expect(flag.stderr).toContain('Usage: tessera');
    const command = spawnSync(process.execPath, [cliPath, 'srve'], { encoding: 'utf8' });
    expect(command.status).toBe(2);
    expect(command.stderr).toContain('unknown command "srve"');
  });

  it('exits 1 with a clear message when the port is busy', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const d = dir();
      const file = writeManifest(d, { listeners: [{ name: 'main', port, plugins: [] }] });
      const cli = runCli(['serve', '--manifest', file]);
      running.push(cli);
      const { code } = await cli.exited;
      expect(code).toBe(1);
      expect(cli.stderr()).toContain(`listener_port_in_use: Listener "main" cannot bind 127.0.0.1:${port}: the port is already in use.`);
    } finally {
      blocker.close();
    }
  });

  it('has the bootstrap key and the listening line on stdout by the time the port answers, even when killed at once', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const d = dir();
    const file = path.join(d, 'manifest.json');
    writeFileSync(
      file,
      JSON.stringify({
        name: 'cli-flush',
        dataDir: './data',
        listeners: [{ name: 'hub', port, plugins: ['rbac'] }],
        plugins: { rbac: {} },
        auth: { provider: 'rbac' },
      }),
    );
    const cli = runCli(['serve', '--manifest', file]);
    running.push(cli);
    const deadline = Date.now() + 15_000;
    let up = false;
    while (!up && Date.now() < deadline) {
      up = await fetch(`http://127.0.0.1:${port}/health`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (!up) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(up).toBe(true);
    cli.child.kill('SIGKILL');
    await cli.exited;
    const lines = cli
      .stdout()
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const key = lines.find((l) => typeof l.apiKey === 'string');
    expect(key?.apiKey).toMatch(/^\S{20,}$/);
    expect(lines.find((l) => l.msg === 'listening')).toMatchObject({ listener: 'hub', url: `http://127.0.0.1:${port}` });
  });

  it('exits 1 naming the file and path for an invalid manifest', async () => {
    const d = dir();
    const file = path.join(d, 'bad.json');
    writeFileSync(file, JSON.stringify({ name: 'x', listeners: [{ name: 'main', port: 'eighty', plugins: [] }] }));
    const cli = runCli(['serve', '--manifest', file]);
    expect((await cli.exited).code).toBe(1);
    expect(cli.stderr()).toContain(`manifest_invalid: ${file}: listeners[0].port: Invalid input: expected number, received string`);
  });

  it('lets an in-flight request finish on SIGTERM, refuses new connections, runs stop hooks and exits 0', async () => {
    const d = dir();
    const cli = runCli(['serve', '--manifest', writeManifest(d, kitchenManifest)]);
    running.push(cli);
    const { main } = await listeningUrls(cli, 1);
    const slow = fetch(`${main}/slow?ms=800`);
    await cli
      .waitForLog((l) => l.msg === 'request' && l.route === '/slow')
      .catch(() => undefined)
      .then(() => undefined);
    // The log line is written when the response is ready, so wait for the request to be in flight instead.
    await new Promise((r) => setTimeout(r, 200));
    cli.child.kill('SIGTERM');
    const response = await slow;
    expect(response.status).toBe(200);
    expect(await json(response)).toEqual({ ok: true, slept: 800 });
    const exit = await cli.exited;
    expect(exit.code).toBe(0);
    await expect(fetch(`${main}/health`)).rejects.toThrow();
    expect(cli.stdout()).toContain('"msg":"stopped"');
  });

  it('keeps every acknowledged write after kill -9 and a restart', async () => {
    const d = dir();
    const file = writeManifest(d, kitchenManifest);
    const first = runCli(['serve', '--manifest', file]);
    running.push(first);
    const { main } = await listeningUrls(first, 1);
    const acknowledged: string[] = [];
    for (let i = 0; i < 50; i++) {
      const res = await fetch(`${main}/kv/key-${i}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ value: { i } }),
      });
      if (res.status === 200) acknowledged.push(`key-${i}`);
    }
    first.child.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');
    expect(acknowledged).toHaveLength(50);

    const second = runCli(['serve', '--manifest', file]);
    running.push(second);
    const urls = await listeningUrls(second, 1);
    for (const key of acknowledged) {
      const body = await json(await fetch(`${urls.main}/kv/${key}`));
      expect(body).toEqual({ ok: true, key, value: { i: Number(key.slice(4)) } });
    }
  });

  it("serves the default manifest's five listeners (with --data-dir overriding its dataDir)", async () => {
    const d = dir();
    const cli = runCli(['serve', '--manifest', 'manifests/default.json', '--data-dir', d]);
    running.push(cli);
    const urls = await listeningUrls(cli, 5).catch((err: Error) => {
      // The fleet's ports may be taken on a developer machine; that is the busy-port test's business.
      if (cli.stderr().includes('listener_port_in_use')) return undefined;
      throw err;
    });
    if (!urls) return;
    expect(
      Object.values(urls)
        .map((u) => Number(new URL(u).port))
        .sort(),
    ).toEqual([3848, 3849, 3851, 3852, 3853]);
    const health = await json(await fetch(`${urls.search}/health`));
    expect(health).toMatchObject({ ok: true, status: 'ok', storage: 'lmdb' });
    // The control plane's page and its script, served from the built package (dist/ finds the UI in the source tree).
    const page = await fetch(`${urls.control}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<title>Tessera control plane</title>');
    expect((await fetch(`${urls.control}/vendor/standalone.module.js`)).status).toBe(200);
    cli.child.kill('SIGTERM');
    expect((await cli.exited).code).toBe(0);
  });
});
