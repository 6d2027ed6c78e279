// Query latency of each fieldScoring on WordNet (title = lemmas, text = gloss), in one run:
// `npm run build && node dist/bench/search/field-scoring-latency.js [--quick]`. One Tessera index
// (english title and text, in-process as bench/search/tessera.ts); 1,000 generated queries of 2-4
// words (the search bench's, seed 1) and 100 warm-up queries (seed 2); the variants take turns in
// rounds so machine noise falls on all of them alike. `sum-once` is the scoring before BM25F.
import 'reflect-metadata';
import { parseCreateIndex } from '../../plugins/search/index/mappings.js';
import { runSearch, searchQuerySchema } from '../../plugins/search/search/search.js';
import { openBenchEngine } from '../support/engine.js';
import { generateQueries, loadWordnet } from './data.js';
import { emit, percentile, round } from './stats.js';
import { K } from './tasks.js';

const quick = process.argv.includes('--quick');
const ROUNDS = quick ? 2 : 5;
const VARIANTS: Record<string, Record<string, unknown>> = {
  'sum-once': { fieldScoring: 'sum', queryTermFrequency: false },
  sum: { fieldScoring: 'sum' },
  bm25f: { fieldScoring: 'bm25f' },
  best: { fieldScoring: 'best', tieBreaker: 0.3 },
};

const docs = await loadWordnet(quick ? 20_000 : Infinity);
const queries = generateQueries(docs, 1000, 1).map((q) => q.text);
const warmup = generateQueries(docs, 100, 2).map((q) => q.text);
const bench = openBenchEngine('field-scoring');
await bench.engine.create(
  'default',
  parseCreateIndex({ name: 'wordnet', mappings: { title: { type: 'text', analyzer: 'english' }, text: { type: 'text', analyzer: 'english' } } }),
);
const index = bench.engine.get('default', 'wordnet');
for (let i = 0; i < docs.length; i += 25_000) await index.upsert(docs.slice(i, i + 25_000) as unknown as Array<Record<string, unknown>>);
await index.mergeIfNeeded(8);

const search = async (q: string, options: Record<string, unknown>): Promise<void> => {
  const { queryTermFrequency, ...body } = options;
  await runSearch(index, bench.runner, { ...searchQuerySchema.parse({ q, size: K, highlight: false, select: ['id'], ...body }), queryTermFrequency } as never);
};
const times: Record<string, number[]> = Object.fromEntries(Object.keys(VARIANTS).map((v) => [v, []]));
for (const [, options] of Object.entries(VARIANTS)) for (const q of warmup) await search(q, options);
for (let r = 0; r < ROUNDS; r++) {
  for (const [name, options] of Object.entries(VARIANTS)) {
    for (const q of queries) {
      const t0 = performance.now();
      await search(q, options);
      times[name]!.push(performance.now() - t0);
    }
  }
}
const summary: Record<string, unknown> = {};
for (const [name, samples] of Object.entries(times)) {
  const figures = {
    p50Ms: round(percentile(samples, 50)),
    p99Ms: round(percentile(samples, 99)),
    meanMs: round(samples.reduce((a, b) => a + b, 0) / samples.length),
  };
  summary[name] = figures;
  emit({ bench: 'field-scoring-latency', docs: docs.length, queries: queries.length, rounds: ROUNDS, variant: name, ...figures });
}
const base = (summary['sum-once'] as { meanMs: number }).meanMs;
emit({ summary, meanVsBefore: Object.fromEntries(Object.entries(summary).map(([n, f]) => [n, round((f as { meanMs: number }).meanMs / base, 2)])) });
await bench.close();
