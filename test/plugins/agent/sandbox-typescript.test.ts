import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectTestCommand, nodeTestFiles } from '../../../plugins/agent/sandbox/detect.js';
import { bwrapWorks, isRoot, unshareWorks } from '../../../plugins/agent/sandbox/isolation.js';
import { Sandbox, type SandboxConfig } from '../../../plugins/agent/sandbox/run.js';
import { copyTsLoader, tsLoader } from '../../../plugins/agent/sandbox/ts-loader.js';
import { repoRoot, tempDir } from '../../helpers/app.js';

function project(files: Record<string, string>): string {
  const dir = tempDir('tessera-sbx-ts-src-');
  chmodSync(dir, 0o755);
  for (const [f, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    writeFileSync(path.join(dir, f), text);
  }
  return dir;
}

const sandboxRoot = path.join(tempDir('tessera-sbx-ts-'), 'runs');
chmodSync(path.dirname(sandboxRoot), 0o755);
const config = (over: Partial<SandboxConfig> = {}): SandboxConfig => ({
  mode: 'auto',
  dir: sandboxRoot,
  timeoutMs: 60_000,
  memoryMb: 1024,
  maxProcesses: 64,
  maxOutputBytes: 200_000,
  maxFileMb: 10,
  uid: 65534,
  gid: 65534,
  hide: [],
  ...over,
});

/** A TypeScript library with type annotations, an enum and a parameter property, imported NodeNext-style (`./shapes.js`). */
const shapes = [
  'export enum Kind { Square = 1, Circle = 2 }',
  'export interface Shape { kind: Kind; size: number }',
  'export class Area {',
  '  constructor(private readonly pi: number) {}',
  '  of(shape: Shape): number {',
  '    return shape.kind === Kind.Square ? shape.size * shape.size : this.pi * shape.size * shape.size;',
  '  }',
  '}',
  '',
].join('\n');
const shapesTest = [
  "import { test } from 'node:test';",
  "import assert from 'node:assert/strict';",
  "import { appendFileSync } from 'node:fs';",
  "import { Area, Kind, type Shape } from '../src/shapes.js';",
  '',
  "test('a circle of radius 2', () => {",
  '  const circle: Shape = { kind: Kind.Circle, size: 2 };',
  '  assert.equal(new Area(Math.PI).of(circle), Math.PI * 4);',
  '});',
  '',
  "test('the loader cannot be changed from a test', () => {",
  "  const loader = process.execArgv[process.execArgv.indexOf('--import') + 1] as string;",
  "  assert.throws(() => appendFileSync(loader, '// changed'));",
  '});',
  '',
].join('\n');

describe('TypeScript repositories: detection', () => {
  it('runs .ts tests with the loader when the repository has no runner of its own that works offline', () => {
    const files = { 'src/shapes.ts': shapes, 'test/shapes.test.ts': shapesTest, 'src/types.d.ts': 'export {};\n', 'src/util.test.mjs': '', 'README.md': '' };
    const ts = { runner: 'node --test', argv: ['node', '--test', 'src/util.test.mjs', 'test/shapes.test.ts'], typescript: true };
    expect(detectTestCommand(project(files))).toEqual(ts);
    for (const script of ['node --test', 'vitest run', 'NODE_ENV=test jest', 'npx tsx --test']) {
      expect(detectTestCommand(project({ ...files, 'package.json': JSON.stringify({ scripts: { test: script } }) })), script).toEqual(ts);
    }
    // The repository's own runner: installed, or a script of its own.
    for (const [script, extra] of [
      ['vitest run', { 'node_modules/.bin/vitest': '#!/bin/sh\n' }],
      ['npm run check && node --test', {}],
      ['make test', {}],
    ] as const) {
      expect(detectTestCommand(project({ ...files, ...extra, 'package.json': JSON.stringify({ scripts: { test: script } }) })), script)?.toEqual({
        runner: 'npm test',
        argv: ['npm', 'test', '--silent'],
      });
    }
    // JavaScript alone keeps the plain `node --test`.
    expect(detectTestCommand(project({ 'test/a.test.mjs': '' }))).toEqual({ runner: 'node --test', argv: ['node', '--test'] });
  });

  it("lists test files by node --test's naming rule", () => {
    const dir = project({
      'a.test.ts': '',
      'b-test.mts': '',
      'c_test.cts': '',
      'test-d.ts': '',
      'test.ts': '',
      'test/helpers/e.ts': '',
      'src/f.ts': '',
      'src/g.spec.ts': '',
      'node_modules/x/h.test.ts': '',
      '.hidden/i.test.ts': '',
      'types.test.d.ts': '',
    });
    expect(nodeTestFiles(dir)).toEqual(['a.test.ts', 'b-test.mts', 'c_test.cts', 'test-d.ts', 'test.ts', 'test/helpers/e.ts']);
  });

  it("finds Tessera's loader and amaro in the installation", () => {
    const loader = tsLoader();
    expect(loader.register).toBe(path.join(repoRoot, 'plugins/agent/sandbox/ts-loader/register.mjs'));
    expect(loader.amaro).toBe(path.join(repoRoot, 'node_modules/amaro'));
  });

  it('works from a copy inside a run folder (for a uid that cannot reach the installation), with amaro beside it', () => {
    const into = tempDir('tessera-ts-loader-copy-');
    const copy = copyTsLoader(into);
    expect(copy).toEqual({ dir: path.join(into, 'loader'), register: path.join(into, 'loader/register.mjs'), amaro: path.join(into, 'node_modules/amaro') });
    const src = project({ 'src/shapes.ts': shapes, 'test/shapes.test.ts': shapesTest });
    const r = spawnSync(process.execPath, ['--import', copy.register, '--test', 'test/shapes.test.ts'], { cwd: src, encoding: 'utf8' });
    expect(r.stdout).toMatch(/# pass 1\n# fail 1/);
    // The second test fails here (the copy is writable by its owner), the first passes: the copy loaded the TypeScript.
    expect(r.stdout).toContain('ok 1 - a circle of radius 2');
  });
});

describe('TypeScript repositories: sandboxed runs', () => {
  const modes = [
    ['bwrap', bwrapWorks(isRoot() ? 65534 : undefined, isRoot() ? 65534 : undefined)],
    ['unshare', unshareWorks()],
    ['process', true],
  ] as const;
  for (const [mode, available] of modes) {
    it.skipIf(!available)(`${mode} mode: strips the types, reports a failing typed test, and passes once fixed`, async () => {
      const sb = new Sandbox(config({ mode }));
      const broken = shapes.replace('this.pi * shape.size * shape.size;', 'this.pi * shape.size;');
      const src = project({ 'src/shapes.ts': broken, 'test/shapes.test.ts': shapesTest });
      const fail = await sb.run({ tenant: 't', user: 'u', source: src });
      expect(fail).toMatchObject({ ok: false, runner: 'node --test', typescript: true, exitCode: 1, limit: null, isolation: { mode } });
      expect(fail.command).toEqual(['node', '--test', 'test/shapes.test.ts']);
      expect(fail.output).toMatch(/# pass 1\n# fail 1/);
      expect(fail.output).toContain('not ok 1 - a circle of radius 2');
      expect(fail.output).not.toMatch(/SyntaxError|ERR_UNKNOWN_FILE_EXTENSION/);
      const pass = await sb.run({ tenant: 't', user: 'u', source: src, files: new Map([['src/shapes.ts', shapes]]) });
      expect(pass).toMatchObject({ ok: true, exitCode: 0 });
      expect(pass.output).toMatch(/# pass 2\n# fail 0/);
    });
  }

  it.skipIf(!modes[0][1])('bwrap mode: mounts the loader read-only even where the installation is hidden from tests', async () => {
    const loader = tsLoader();
    // Hiding the whole installation (as a service under a hidden home would be) masks the loader; it is bound back.
    const sb = new Sandbox(config({ mode: 'bwrap', hide: [repoRoot] }));
    const src = project({ 'src/shapes.ts': shapes, 'test/shapes.test.ts': shapesTest, 'test/hidden.test.ts': hiddenTest(loader.dir) });
    const r = await sb.run({ tenant: 't', user: 'u', source: src });
    expect(r.output).toMatch(/# pass 3\n# fail 0/);
    expect(r.ok).toBe(true);
  });
});

/** A test that the rest of the installation is hidden (an empty folder) while the loader's own folder is there. */
const hiddenTest = (loaderDir: string) =>
  [
    "import { test } from 'node:test';",
    "import assert from 'node:assert/strict';",
    "import { existsSync, readdirSync } from 'node:fs';",
    '',
    "test('only the loader of the installation is visible', () => {",
    `  assert.equal(existsSync(${JSON.stringify(path.join(repoRoot, 'package.json'))}), false);`,
    `  assert.deepEqual(readdirSync(${JSON.stringify(loaderDir)}).sort(), ['hooks.mjs', 'register.mjs']);`,
    '});',
    '',
  ].join('\n');
