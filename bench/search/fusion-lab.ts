// Fusion lab: `npm run build && node dist/bench/search/fusion-lab.js [rank,rank]`. Per judged
// collection, the keyword window (the engine's defaults) and semantic windows of hashed-ngrams-v2
// (the engine's) and of corpus-lsa-v1 trained at each rank (exact cosine here), 100 deep, once;
// then every fusion rule of RULES over those windows, offline. Prints training ms and nDCG@10.
import 'reflect-metadata';
import { embedCorpusLsa, trainCorpusLsa } from '../../plugins/search/embedders/corpus-lsa.js';
import { parseCreateIndex } from '../../plugins/search/index/mappings.js';
import { runSearch, searchQuerySchema } from '../../plugins/search/search/search.js';
import { fuseWindows, type FusionRule, type Ranked } from '../../plugins/search/search/fusion.js';
import { openBenchEngine } from '../support/engine.js';
import { COLLECTIONS, loadCollection } from './data.js';
import { ndcgAt } from './ndcg.js';
import { round } from './stats.js';
import { K } from './tasks.js';

const WINDOW = 100;
const ranks = (process.argv[2] ?? '64,128,384').split(',').map(Number);
const powers = (process.env['POWER'] ?? '2').split(',').map(Number);
const RULES: Array<[string, FusionRule]> = JSON.parse(
  process.env['RULES'] ??
    JSON.stringify([
      ['rrf 0.5', { fusion: 'rrf', semanticRatio: 0.5, rrfK: 60 }],
      ['rrf 0.3', { fusion: 'rrf', semanticRatio: 0.3, rrfK: 60 }],
      ['convex 0.5', { fusion: 'convex', semanticRatio: 0.5 }],
      ['convex 0.3', { fusion: 'convex', semanticRatio: 0.3 }],
      ['convex 0.2', { fusion: 'convex', semanticRatio: 0.2 }],
      ['zscore 0.5', { fusion: 'convex', normalization: 'zscore', semanticRatio: 0.5 }],
      ['zscore 0.3', { fusion: 'convex', normalization: 'zscore', semanticRatio: 0.3 }],
      ['dbsf 0.5', { fusion: 'convex', normalization: 'dbsf', semanticRatio: 0.5 }],
      ['dbsf 0.3', { fusion: 'convex', normalization: 'dbsf', semanticRatio: 0.3 }],
    ]),
);

const bench = openBenchEngine('fusion-lab');
const table = new Map<string, Record<string, number>>();
const put = (key: string, collection: string, value: number): void => {
  if (!table.has(key)) table.set(key, {});
  table.get(key)![collection] = round(value, 4);
};

function cosineTop(docs: Float32Array[], ids: readonly string[], q: Float32Array, k: number): Ranked[] {
  const scored: Ranked[] = [];
  for (let d = 0; d < docs.length; d++) {
    const v = docs[d]!;
    let s = 0;
    for (let j = 0; j < q.length; j++) s += v[j]! * q[j]!;
    scored.push({ id: ids[d]!, score: s });
  }
  return scored.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1)).slice(0, k);
}

for (const collection of COLLECTIONS) {
  const data = loadCollection(collection);
  const name = `lab-${collection}`.replace(/[^a-z0-9-]/g, '');
  await bench.engine.create(
    'default',
    parseCreateIndex({
      name,
      mappings: { title: { type: 'text', analyzer: 'english' }, text: { type: 'text', analyzer: 'english' } },
      settings: { autoEmbed: true, vectorDimensions: 384, embedder: { type: 'builtin', model: 'hashed-ngrams-v2' } },
    }),
  );
  const index = bench.engine.get('default', name);
  await index.upsert(data.docs as unknown as Array<Record<string, unknown>>);
  const windows = async (mode: string): Promise<Ranked[][]> => {
    const out: Ranked[][] = [];
    for (const q of data.queries) {
      const body = searchQuerySchema.parse({ q: q.text, mode, size: WINDOW, highlight: false, select: ['id'] });
      out.push(((await runSearch(index, bench.runner, body)).hits as Ranked[]).map((h) => ({ id: h.id, score: h.score })));
    }
    return out;
  };
  const keyword = await windows('keyword');
  const evaluate = (lists: Ranked[][]): number =>
    data.queries.reduce(
      (sum, q, i) =>
        sum +
        ndcgAt(
          K,
          lists[i]!.map((r) => r.id),
          data.qrels.get(q.id) ?? new Map(),
        ),
      0,
    ) / data.queries.length;
  put('keyword', collection, evaluate(keyword));
  const semantics: Array<[string, Ranked[][]]> = [['hashed-ngrams-v2', await windows('semantic')]];
  const analyzers = index.embeddingCorpus().analyzers;
  const texts = data.docs.map((d) => `${d.title}\n${d.text}`);
  for (const rank of ranks) {
    for (const power of powers) {
      const t0 = performance.now();
      const model = await trainCorpusLsa(texts, analyzers, 384, { rank, powerIterations: power });
      const ms = performance.now() - t0;
      const label = `lsa r${rank} p${power}`;
      put(`${label} train ms`, collection, ms);
      process.stderr.write(`${collection} ${label}: ${Math.round(ms)} ms\n`);
      const docs = texts.map((t) => embedCorpusLsa(model, t, analyzers));
      const ids = data.docs.map((d) => d.id);
      semantics.push([label, data.queries.map((q) => cosineTop(docs, ids, embedCorpusLsa(model, q.text, analyzers), WINDOW))]);
    }
  }
  for (const [label, sem] of semantics) {
    put(`${label} semantic`, collection, evaluate(sem));
    for (const [ruleName, rule] of RULES) {
      put(`${label} ${ruleName}`, collection, evaluate(keyword.map((kw, i) => fuseWindows(kw, sem[i]!, rule).map(({ id, score }) => ({ id, score })))));
    }
  }
  await bench.engine.delete('default', name);
}
await bench.close();
for (const [key, r] of table) process.stdout.write(`| ${key} | ${COLLECTIONS.map((c) => r[c]?.toFixed(4)).join(' | ')} |\n`);
