/**
 * Agent part 2 bench: knowledge-graph build time and size on the project's own git tree (cold,
 * warm with nothing changed, one changed file; in the code search index and the graph plugin), and the cost of one remediation iteration excluding
 * the model: verify a diff against a commit, then run the repository's pytest suite in the sandbox.
 * Prints JSON.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import 'reflect-metadata';
import { simpleGit } from 'simple-git';
import { App } from '../../runtime/app.js';
import { createLogger } from '../../runtime/logger.js';
import { resolveManifest } from '../../runtime/manifest.js';
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

/**
 * The knowledge graph of the project's own tree at HEAD, built through
 * `GET /api/v1/repos/{repo}/knowledge-graph` of a running service (search, graph and agent plugins):
 * cold (every file parsed, declarations written to the code search index with vectors, triples to
 * the graph), again at the same commit, then three commits that each change one file.
 */
async function graphBench() {
  // BENCH_REPO: another git tree to index (to compare builds on one tree across versions).
  const project = process.env.BENCH_REPO ?? process.cwd();
  const root = mkdtempSync(path.join(os.tmpdir(), 'tessera-bench-graph-'));
  // `<reposRoot>/tessera/self`: a clone of the tree the service clones from; the bench commits there.
  const work = path.join(root, 'repos', 'tessera', 'self');
  const g = (cwd: string, ...a: string[]) =>
    execFileSync('git', a, {
      cwd,
      encoding: 'utf8',
      env: { ...process.env, GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@b' },
    });
  mkdirSync(path.dirname(work), { recursive: true });
  g(root, 'clone', '-q', '--no-local', project, work);
  const dataDir = path.join(root, 'data');
  const manifest = resolveManifest(
    {
      name: 'bench-agent-code',
      listeners: [{ name: 'agent', port: 0, plugins: ['agent', 'search', 'graph'] }],
      plugins: {
        search: {},
        graph: {},
        agent: {
          options: { baseUrl: 'http://127.0.0.1:9/api/v1', reposRoot: path.join(root, 'repos'), workspaces: { refreshSeconds: 0, dir: path.join(root, 'ws') } },
        },
      },
    },
    { file: '(bench)', dir: process.cwd(), dataDir },
  );
  const app = await App.create(manifest, { logger: createLogger({ level: 'warn' }) });
  await app.start();
  const base = app.url('agent');
  const get = async (p: string) => {
    const res = await fetch(`${base}${p}`);
    const body = (await res.json()) as any;
    if (res.status !== 200) throw new Error(`${p} answered ${res.status}: ${JSON.stringify(body)}`);
    return body;
  };
  try {
    await get('/api/v1/repos/tessera%2Fself/files'); // the clone, outside the measures
    let t = performance.now();
    const cold = await get('/api/v1/repos/tessera%2Fself/knowledge-graph?limit=10');
    const coldMs = performance.now() - t;
    const warm: number[] = [];
    for (let i = 0; i < 3; i++) {
      t = performance.now();
      await get('/api/v1/repos/tessera%2Fself/knowledge-graph?limit=10');
      warm.push(performance.now() - t);
    }
    const one: number[] = [];
    for (let i = 0; i < 3; i++) {
      const file = path.join(work, 'plugins/agent/code/extract.ts');
      writeFileSync(file, `${readFileSync(file, 'utf8')}\nexport function benchAdded${i}(): number {\n  return ${i};\n}\n`);
      g(work, 'commit', '-qam', `bench ${i}`);
      t = performance.now();
      const r = await get('/api/v1/repos/tessera%2Fself/knowledge-graph?limit=10');
      one.push(performance.now() - t);
      if (r.stats.parsedFiles !== 1) throw new Error(`expected one re-parsed file, got ${r.stats.parsedFiles}`);
    }
    t = performance.now();
    const full = await get('/api/v1/repos/tessera%2Fself/knowledge-graph?full=true');
    const fullReadMs = performance.now() - t;
    // Builds before the code index (the agent's own store) answer no `index`.
    const index = cold.index ? ((await (await fetch(`${base}/v1/indexes/${cold.index}`)).json()) as any) : undefined;
    const graph = cold.index ? ((await (await fetch(`${base}/v1/indexes/${cold.index}/graph/stats`)).json()) as any) : undefined;
    await app.stop();
    const du = (p: string): number => (statSync(p).isDirectory() ? readdirSync(p).reduce((n, f) => n + du(path.join(p, f)), 0) : statSync(p).size);
    return {
      files: cold.stats.files,
      declarations: cold.stats.declarations,
      edges: full.edges.length,
      calls: cold.stats.calls,
      resolvedCalls: cold.stats.resolvedCalls,
      coldBuildMs: Math.round(coldMs),
      ...(index ? { indexBytes: index.index?.stats?.bytes, graph: { entities: graph.stats.entities, triples: graph.stats.triples } } : {}),
      dataDirBytes: du(dataDir),
      warmNoChangeMs: Math.round(median(warm)),
      oneChangedFileMs: Math.round(median(one)),
      fullReadMs: Math.round(fullReadMs),
      warmOverColdRatio: Number((median(warm) / coldMs).toFixed(3)),
      oneChangedOverColdRatio: Number((median(one) / coldMs).toFixed(3)),
    };
  } finally {
    await app.stop().catch(() => undefined);
    rmSync(root, { recursive: true, force: true });
  }
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

console.log(JSON.stringify({ graph: await graphBench(), ...(process.env.BENCH_GRAPH_ONLY ? {} : { iteration: await iterationBench() }) }));
