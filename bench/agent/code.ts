/**
 * Agent part 2 bench: knowledge-graph build time and size on the project's own git tree (cold,
 * warm with nothing changed, one changed file), and the cost of one remediation iteration excluding
 * the model: verify a diff against a commit, then run the repository's pytest suite in the sandbox.
 * Prints JSON.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { open } from 'lmdb';
import { simpleGit } from 'simple-git';
import { CodeGraphStore } from '../../plugins/agent/code/graph-store.js';
import { commitReader } from '../../plugins/agent/patches/tree-reader.js';
import { verifyPatch } from '../../plugins/agent/patches/verify.js';
import type { Checkout } from '../../plugins/agent/repos/repositories.js';
import { Sandbox } from '../../plugins/agent/sandbox/run.js';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const checkout = (dir: string, full: string): Checkout =>
  ({
    dir,
    git: simpleGit(dir),
    gitConfig: [],
    ref: { owner: full.split('/')[0]!, name: full.split('/')[1]!, full },
    defaultBranch: 'main',
    pushUrl: dir,
  }) as Checkout;

async function graphBench() {
  const repo = process.cwd();
  const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repo, encoding: 'utf8' }).trim();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tessera-bench-graph-'));
  const env = open({ path: path.join(dir, 'db'), compression: false });
  const store = { db: (name: string) => env.openDB({ name }) } as unknown as ConstructorParameters<typeof CodeGraphStore>[0];
  const graphs = new CodeGraphStore(store);
  const c = checkout(repo, 'tessera-runtime/self');
  let t = performance.now();
  const cold = await graphs.update('bench', c, head);
  const coldMs = performance.now() - t;
  await env.flushed;
  const du = (p: string): number => (statSync(p).isDirectory() ? readdirSync(p).reduce((n, f) => n + du(path.join(p, f)), 0) : statSync(p).size);
  const storedBytes = du(dir);
  let entryBytes = 0;
  for (const { value } of env.openDB({ name: 'code-files' }).getRange({})) entryBytes += JSON.stringify(value).length;
  const warm: number[] = [];
  for (let i = 0; i < 3; i++) {
    t = performance.now();
    await graphs.update('bench', c, head);
    warm.push(performance.now() - t);
  }
  const files = env.openDB({ name: 'code-files' });
  const one: number[] = [];
  for (let i = 0; i < 3; i++) {
    const key = ['bench', 'tessera-runtime/self', 'plugins/agent/code/extract.ts'];
    await files.remove(key);
    t = performance.now();
    const g = await graphs.update('bench', c, head);
    one.push(performance.now() - t);
    if (g.stats.parsedFiles !== 1) throw new Error(`expected one re-parsed file, got ${g.stats.parsedFiles}`);
  }
  await env.close();
  rmSync(dir, { recursive: true, force: true });
  return {
    files: cold.stats.files,
    declarations: cold.stats.declarations,
    edges: cold.edges.length,
    calls: cold.stats.calls,
    resolvedCalls: cold.stats.resolvedCalls,
    coldBuildMs: Math.round(coldMs),
    storedBytes,
    storedJsonBytes: entryBytes,
    warmNoChangeMs: Math.round(median(warm)),
    oneChangedFileMs: Math.round(median(one)),
    warmOverColdRatio: Number((median(warm) / coldMs).toFixed(3)),
  };
}

async function iterationBench() {
  const root = mkdtempSync(path.join(os.tmpdir(), 'tessera-bench-iter-'));
  chmodSync(root, 0o755); // the sandbox's dropped uid must reach its run directory
  const work = path.join(root, 'repo');
  mkdirSync(path.join(work, 'tests'), { recursive: true });
  writeFileSync(path.join(work, 'calc.py'), 'def add(a, b):\n    return a - b\n');
  writeFileSync(path.join(work, 'tests/test_calc.py'), 'from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n');
  const g = (...a: string[]) =>
    execFileSync('git', a, {
      cwd: work,
      encoding: 'utf8',
      env: { ...process.env, GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@b' },
    });
  g('init', '-q', '-b', 'main');
  g('add', '-A');
  g('commit', '-qm', 'init');
  const head = g('rev-parse', 'HEAD').trim();
  const diff = '--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n';
  const sandbox = new Sandbox({
    mode: 'auto',
    dir: path.join(root, 'runs'),
    timeoutMs: 60_000,
    memoryMb: 1024,
    maxProcesses: 256,
    maxOutputBytes: 1_000_000,
    maxFileMb: 100,
    uid: 65534,
    gid: 65534,
    hide: [],
  });
  const verify: number[] = [];
  const run: number[] = [];
  let isolation = '';
  for (let i = 0; i < 5; i++) {
    let t = performance.now();
    const v = await verifyPatch(diff, await commitReader(checkout(work, 'bench/iter'), head));
    verify.push(performance.now() - t);
    if (!v.ok) throw new Error(JSON.stringify(v.problems));
    t = performance.now();
    const r = await sandbox.run({ tenant: 'bench', user: 'bench', source: work, files: new Map(v.files.map((f) => [f.path, f.after])) });
    run.push(performance.now() - t);
    if (!r.ok) throw new Error(r.output);
    isolation = r.isolation.mode;
  }
  rmSync(root, { recursive: true, force: true });
  return { verifyMs: Math.round(median(verify)), sandboxedPytestMs: Math.round(median(run)), iterationMs: Math.round(median(verify) + median(run)), isolation };
}

console.log(JSON.stringify({ graph: await graphBench(), iteration: await iterationBench() }));
