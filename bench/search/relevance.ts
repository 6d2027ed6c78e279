// Relevance benchmark: `npm run bench:relevance` (= npm run build && node dist/bench/search/relevance.js).
// In one run, on every judged collection of ../shared/data (Cranfield, nfcorpus_pp, CISI): nDCG@10
// of Tessera's keyword search (fieldScoring each way, with and without query-term frequency, and the
// same text in one field), semantic and hybrid at the API's defaults (autoEmbed, the default built-in
// embedder), and of the peers (plain BM25 reference, wink-bm25, MiniSearch, SQLite FTS5, LanceDB),
// each with its own defaults over title + text; Tessera's median query ms per variant. Prints one
// JSON line per (collection, engine), then {"summary": ...} and the markdown table of bench/README.md.
// `--only tessera,lancedb` runs some engines; `--collections cisi` some collections.
import 'reflect-metadata';
import type { SearchAdapter } from './adapter.js';
import { Bm25ReferenceAdapter } from './bm25-reference.js';
import { COLLECTIONS, loadCollection, type CollectionName, type Cranfield } from './data.js';
import { ndcgAt } from './ndcg.js';
import { emit, percentile, round } from './stats.js';
import { K } from './tasks.js';
import { TESSERA_VARIANTS, TesseraRelevance } from './tessera-relevance.js';

const args = process.argv.slice(2);
const listArg = (flag: string): string[] | null => {
  const i = args.indexOf(flag);
  return i === -1 ? null : (args[i + 1] ?? '').split(',').filter(Boolean);
};

const PEERS: Record<string, () => Promise<SearchAdapter>> = {
  'bm25-reference': async () => new Bm25ReferenceAdapter(true),
  'bm25-reference-once': async () => new Bm25ReferenceAdapter(false),
  'wink-bm25': async () => new (await import('./wink-bm25.js')).WinkBm25Adapter(),
  minisearch: async () => new (await import('./minisearch.js')).MiniSearchAdapter(),
  'sqlite-fts5': async () => new (await import('./sqlite-fts5.js')).SqliteFts5Adapter('unicode61'),
  'sqlite-fts5-porter': async () => new (await import('./sqlite-fts5.js')).SqliteFts5Adapter('porter unicode61'),
  lancedb: async () => new (await import('./lancedb.js')).LanceDbAdapter(),
};
const only = listArg('--only');
const collections = (listArg('--collections') ?? [...COLLECTIONS]) as CollectionName[];

async function evaluate(data: Cranfield, search: (q: string) => Promise<string[]>): Promise<{ ndcg10: number; medianMs: number }> {
  let sum = 0;
  for (const q of data.queries) sum += ndcgAt(K, await search(q.text), data.qrels.get(q.id) ?? new Map());
  const times: number[] = [];
  for (const q of data.queries) {
    const t0 = performance.now();
    await search(q.text);
    times.push(performance.now() - t0);
  }
  return { ndcg10: round(sum / data.queries.length, 4), medianMs: round(percentile(times, 50)) };
}

const table = new Map<string, Record<string, { ndcg10: number; medianMs: number } | { error: string }>>();
const record = (engine: string, collection: string, figures: { ndcg10: number; medianMs: number } | { error: string }, description: string): void => {
  if (!table.has(engine)) table.set(engine, {});
  table.get(engine)![collection] = figures;
  emit({ bench: 'relevance', collection, engine, description, ...figures });
};

const started = performance.now();
for (const collection of collections) {
  const data = loadCollection(collection);
  if (!only || only.includes('tessera')) {
    const tessera = new TesseraRelevance();
    try {
      await tessera.build(data.docs);
      emit({ bench: 'relevance', collection, embedderTrainingMs: Math.round(tessera.trainingMs ?? 0), docs: data.docs.length });
      for (const variant of TESSERA_VARIANTS) {
        record(variant.name, collection, await evaluate(data, (q) => tessera.search(variant, q, K)), variant.description);
      }
    } finally {
      await tessera.close();
    }
  }
  for (const [name, factory] of Object.entries(PEERS)) {
    if (only && !only.includes(name)) continue;
    let adapter: SearchAdapter | undefined;
    try {
      adapter = await factory();
      await adapter.build(data.docs);
      record(name, collection, await evaluate(data, (q) => adapter!.search(q, K)), adapter.description);
    } catch (error) {
      record(name, collection, { error: (error as Error).message.split('\n')[0]! }, name);
    } finally {
      await adapter?.close();
    }
  }
}

const cell = (f: { ndcg10: number; medianMs: number } | { error: string } | undefined): string =>
  f === undefined ? 'n/a' : 'error' in f ? 'error' : f.ndcg10.toFixed(4);
const summary = Object.fromEntries([...table].map(([engine, byCollection]) => [engine, byCollection]));
// Issue 12's bar: hybrid at its defaults at least keyword at its defaults, on every collection.
const ndcg = (engine: string, c: string): number | undefined => {
  const f = table.get(engine)?.[c];
  return f && 'ndcg10' in f ? f.ndcg10 : undefined;
};
const hybridAtLeastKeyword = Object.fromEntries(
  collections.map((c) => [
    c,
    ndcg('tessera-hybrid', c) !== undefined && ndcg('tessera', c) !== undefined ? ndcg('tessera-hybrid', c)! >= ndcg('tessera', c)! : null,
  ]),
);
emit({ summary, hybridAtLeastKeyword, seconds: round((performance.now() - started) / 1000, 1) });
const lines = [
  `| engine | ${collections.join(' | ')} | median ms (${collections.join(' / ')}) |`,
  `|---|${collections.map(() => '---|').join('')}---|`,
  ...[...table].map(
    ([engine, byCollection]) =>
      `| ${engine} | ${collections.map((c) => cell(byCollection[c])).join(' | ')} | ${collections
        .map((c) => {
          const f = byCollection[c];
          return f && 'medianMs' in f ? String(f.medianMs) : 'n/a';
        })
        .join(' / ')} |`,
  ),
];
process.stdout.write(lines.join('\n') + '\n');
