// BM25 parameter sweep on every judged collection in one run: `npm run build && node
// dist/bench/search/relevance-sweep.js`. For each (k1, b) an index of title and text as english
// fields; nDCG@10 of each fieldScoring with and without query-term frequency. One JSON line per
// setting, then the rows sorted by their worst collection's margin over the default's.
import 'reflect-metadata';
import { parseCreateIndex } from '../../plugins/search/index/mappings.js';
import { runSearch, searchQuerySchema } from '../../plugins/search/search/search.js';
import { openBenchEngine } from '../support/engine.js';
import { COLLECTIONS, loadCollection } from './data.js';
import { ndcgAt } from './ndcg.js';
import { emit, round } from './stats.js';
import { K } from './tasks.js';

const K1S = (process.env['SWEEP_K1'] ?? '0.9,1.2,1.6,2.0').split(',').map(Number);
const BS = [0.4, 0.6, 0.75];
const SCORINGS = (process.env['SWEEP_SCORING'] ?? 'bm25f,sum').split(',') as Array<'bm25f' | 'sum'>;
const bench = openBenchEngine('relevance-sweep');
const rows = new Map<string, Record<string, number>>();
for (const collection of COLLECTIONS) {
  const data = loadCollection(collection);
  for (const k1 of K1S) {
    for (const b of BS) {
      const name = `${collection}-${k1}-${b}`.replace(/[^a-z0-9-]/g, '');
      await bench.engine.create(
        'default',
        parseCreateIndex({
          name,
          mappings: { title: { type: 'text', analyzer: 'english' }, text: { type: 'text', analyzer: 'english' } },
          settings: { k1, b },
        }),
      );
      const index = bench.engine.get('default', name);
      await index.upsert(data.docs as unknown as Array<Record<string, unknown>>);
      for (const fieldScoring of SCORINGS) {
        for (const qtf of [true, false]) {
          let sum = 0;
          for (const q of data.queries) {
            const body = { ...searchQuerySchema.parse({ q: q.text, size: K, highlight: false, select: ['id'], fieldScoring }), queryTermFrequency: qtf };
            const hits = (await runSearch(index, bench.runner, body)).hits as Array<{ id: string }>;
            sum += ndcgAt(
              K,
              hits.map((h) => h.id),
              data.qrels.get(q.id) ?? new Map(),
            );
          }
          const key = `${fieldScoring} qtf=${qtf} k1=${k1} b=${b}`;
          if (!rows.has(key)) rows.set(key, {});
          rows.get(key)![collection] = round(sum / data.queries.length, 4);
          emit({ bench: 'relevance-sweep', collection, fieldScoring, queryTermFrequency: qtf, k1, b, ndcg10: rows.get(key)![collection] });
        }
      }
    }
  }
}
await bench.close();
for (const [key, r] of [...rows].sort((x, y) => Object.values(y[1]).reduce((a, c) => a + c, 0) - Object.values(x[1]).reduce((a, c) => a + c, 0))) {
  process.stdout.write(`| ${key} | ${COLLECTIONS.map((c) => r[c]?.toFixed(4)).join(' | ')} |\n`);
}
