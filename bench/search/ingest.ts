// Ingestion benchmark: `npm run bench:ingest [-- --reps N] [--only wordnet,cranfield] [--wordnet-limit N]`.
// Docs/s on WordNet and the dev collections, in one run: SQLite FTS5 (one transaction of prepared
// inserts, the bench:search adapter's build), Tessera in-process (the search engine's upsert, the
// write path POST /documents and the bulk indexer call; batches of 25,000 and of 1,000; once with
// autoEmbed on), and Tessera over HTTP (a real `tessera serve`: POST /v1/indexes/{name}/documents
// in batches of 1,000, and one NDJSON stream to POST /v1/bulk). Each cell is the median of N runs on
// a fresh store; ratios are against FTS5's median in the same run. Prints JSON lines, then a table.
import 'reflect-metadata';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { createKernelRunner } from '../../kernels/src/index.js';
import { createLogger } from '../../runtime/logger.js';
import { Store } from '../../runtime/store.js';
import { parseCreateIndex } from '../../plugins/search/index/mappings.js';
import { SearchEngine } from '../../plugins/search/index/search-engine.js';
import type { BenchDoc } from './adapter.js';
import { COLLECTIONS, loadCollection, loadWordnet } from './data.js';
import { serveSearch } from './serve.js';

const MAPPINGS = { title: { type: 'text', analyzer: 'english' }, text: { type: 'text', analyzer: 'english' } } as const;
const HTTP_BATCH = 1000;

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? undefined : process.argv[i + 1];
}
const reps = Number(arg('reps') ?? 3);
const only = arg('only')?.split(',');
const wordnetLimit = arg('wordnet-limit') ? Number(arg('wordnet-limit')) : Infinity;
const profileOnly = process.argv.includes('--profile-in-process');
const child = arg('child');

function emit(line: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

async function time(fn: () => Promise<void> | void): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

async function fts5(docs: BenchDoc[]): Promise<number> {
  const dir = mkdtempSync(path.join(tmpdir(), 'tessera-ingest-fts5-'));
  try {
    const db = new Database(path.join(dir, 'index.db'));
    db.exec(`CREATE VIRTUAL TABLE docs USING fts5(id UNINDEXED, title, text, tokenize = 'porter unicode61')`);
    const insert = db.prepare<[string, string, string]>('INSERT INTO docs (id, title, text) VALUES (?, ?, ?)');
    const ms = await time(() => db.transaction((all: BenchDoc[]) => all.forEach((d) => insert.run(d.id, d.title, d.text)))(docs));
    db.close();
    return ms;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The engine's upsert, as the HTTP route calls it, on a fresh LMDB store; merges are not counted. */
async function inProcess(docs: BenchDoc[], batch: number, autoEmbed: boolean): Promise<number> {
  const dir = mkdtempSync(path.join(tmpdir(), 'tessera-ingest-'));
  const store = Store.open(path.join(dir, 'data'));
  const runner = createKernelRunner({ threads: 1 });
  const engine = new SearchEngine({ store: store.namespace('search'), kernels: () => runner, log: createLogger({ level: 'silent' }) });
  try {
    engine.load();
    const settings = autoEmbed ? { autoEmbed: true, vectorDimensions: 384 } : {};
    await engine.create('default', parseCreateIndex({ name: 'bench', mappings: MAPPINGS, settings }));
    const index = engine.get('default', 'bench');
    return await time(async () => {
      for (let i = 0; i < docs.length; i += batch) {
        const result = await index.upsert(docs.slice(i, i + batch));
        if (result.errors.length > 0) throw new Error(`tessera rejected documents: ${JSON.stringify(result.errors.slice(0, 3))}`);
      }
    });
  } finally {
    engine.close();
    await runner.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

interface Server {
  url: string;
  stop(): Promise<void>;
}

/** A real `tessera serve` (search and bulk plugins, default options) on a fresh data directory. */
async function serve(): Promise<Server> {
  const dir = mkdtempSync(path.join(tmpdir(), 'tessera-ingest-http-'));
  const server = await serveSearch(dir, ['search', 'bulk']);
  const url = server.url;
  const created = await fetch(`${url}/v1/indexes`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench', mappings: MAPPINGS }),
  });
  if (!created.ok) throw new Error(`create index: ${created.status} ${await created.text()}`);
  return {
    url,
    async stop() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** POST /v1/indexes/bench/documents, batches of 1,000, bodies serialised before the clock starts. */
async function overHttpDocuments(docs: BenchDoc[]): Promise<number> {
  const bodies: string[] = [];
  for (let i = 0; i < docs.length; i += HTTP_BATCH) bodies.push(JSON.stringify(docs.slice(i, i + HTTP_BATCH)));
  const server = await serve();
  try {
    return await time(async () => {
      for (const body of bodies) {
        const res = await fetch(`${server.url}/v1/indexes/bench/documents`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        const answer = (await res.json()) as { errors?: unknown[] };
        if (!res.ok || (answer.errors?.length ?? 0) > 0) throw new Error(`documents: ${res.status} ${JSON.stringify(answer).slice(0, 300)}`);
      }
    });
  } finally {
    await server.stop();
  }
}

/** One NDJSON stream (action line + document line per document) to POST /v1/bulk?index=bench. */
async function overHttpBulk(docs: BenchDoc[]): Promise<number> {
  const body = Buffer.from(docs.map((d) => `{"index":{"_id":${JSON.stringify(d.id)}}}\n${JSON.stringify(d)}\n`).join(''));
  const server = await serve();
  try {
    return await time(async () => {
      const res = await fetch(`${server.url}/v1/bulk?index=bench`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body });
      const answer = (await res.json()) as { failed?: number; indexed?: number };
      if (!res.ok || answer.failed !== 0 || answer.indexed !== docs.length) throw new Error(`bulk: ${res.status} ${JSON.stringify(answer).slice(0, 300)}`);
    });
  } finally {
    await server.stop();
  }
}

/**
 * The in-process build in a fresh node process (the collection loaded before the clock starts), so
 * that no run finds the stemmer's memo or the JIT warmed by an earlier one: every build is a first build.
 */
function inChild(set: string, batch: number, autoEmbed: boolean): Promise<number> {
  const argv = [fileURLToPath(import.meta.url), '--child', `${set}:${batch}:${autoEmbed ? 1 : 0}`];
  if (Number.isFinite(wordnetLimit)) argv.push('--wordnet-limit', String(wordnetLimit));
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    proc.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    proc.on('exit', (code) => (code === 0 ? resolve((JSON.parse(out) as { ms: number }).ms) : reject(new Error(`in-process child exited with ${code}`))));
  });
}

let current = '';
const ENGINES: Array<{ name: string; run: (docs: BenchDoc[]) => Promise<number> }> = [
  { name: 'sqlite-fts5-porter', run: fts5 },
  { name: 'tessera in-process (batches of 25,000)', run: () => inChild(current, 25_000, false) },
  { name: 'tessera in-process (batches of 1,000)', run: () => inChild(current, 1000, false) },
  { name: 'tessera in-process, autoEmbed on (batches of 1,000)', run: () => inChild(current, 1000, true) },
  { name: 'tessera HTTP POST /documents (batches of 1,000)', run: overHttpDocuments },
  { name: 'tessera HTTP POST /v1/bulk (NDJSON stream)', run: overHttpBulk },
];

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

async function main(): Promise<void> {
  const sets: Array<{ name: string; load: () => Promise<BenchDoc[]> }> = [
    { name: 'wordnet', load: () => loadWordnet(wordnetLimit) },
    ...COLLECTIONS.map((c) => ({ name: c as string, load: async () => loadCollection(c).docs })),
  ];
  if (child) {
    const [name, batch, auto] = child.split(':');
    const docs = await sets.find((s) => s.name === name)!.load();
    emit({ ms: await inProcess(docs, Number(batch), auto === '1') });
    return;
  }
  if (profileOnly) {
    // For `node --cpu-prof`: the in-process build alone (batches of 1,000), a few times over.
    const docs = await sets.find((s) => s.name === (only?.[0] ?? 'wordnet'))!.load();
    for (let r = 0; r < reps; r++) emit({ profile: 'in-process', docs: docs.length, ms: await inProcess(docs, 1000, false) });
    return;
  }
  const table: string[] = ['| collection | docs | engine | docs/s (median) | x FTS5 |', '|---|---|---|---|---|'];
  for (const set of sets) {
    if (only && !only.includes(set.name)) continue;
    const docs = await set.load();
    current = set.name;
    const samples = new Map<string, number[]>(ENGINES.map((e) => [e.name, []]));
    // Interleaved repetitions, so load on the shared machine falls on every engine alike.
    for (let r = 0; r < reps; r++) {
      for (const engine of ENGINES) {
        if (global.gc) global.gc();
        const ms = await engine.run(docs);
        samples.get(engine.name)!.push((docs.length / ms) * 1000);
      }
    }
    const fts = median(samples.get('sqlite-fts5-porter')!);
    for (const engine of ENGINES) {
      const rate = median(samples.get(engine.name)!);
      const ratio = rate / fts;
      emit({
        bench: 'ingest',
        collection: set.name,
        docs: docs.length,
        engine: engine.name,
        docsPerSec: Math.round(rate),
        samples: samples.get(engine.name)!.map(Math.round),
        ratioToFts5: Number(ratio.toFixed(3)),
      });
      table.push(`| ${set.name} | ${docs.length} | ${engine.name} | ${Math.round(rate).toLocaleString('en')} | ${ratio.toFixed(2)} |`);
    }
  }
  process.stdout.write(`\n${table.join('\n')}\n`);
}

await main();
