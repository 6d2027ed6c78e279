// Hybrid fusion sweep on every judged collection in one run: `npm run build && node
// dist/bench/search/hybrid-sweep.js [model,model]`. Per built-in embedder, an autoEmbed index of
// title and text (english); nDCG@10 of keyword, semantic and hybrid over a grid of fusion settings.
import 'reflect-metadata';
import type { BuiltinModel } from '../../plugins/search/embedders/embedder-setting.js';
import { parseCreateIndex } from '../../plugins/search/index/mappings.js';
import { runSearch, searchQuerySchema } from '../../plugins/search/search/search.js';
import { openBenchEngine } from '../support/engine.js';
import { COLLECTIONS, loadCollection } from './data.js';
import { ndcgAt } from './ndcg.js';
import { emit, round } from './stats.js';
import { K } from './tasks.js';

const models = (process.argv[2] ?? 'hashed-ngrams-v2,corpus-lsa-v1').split(',') as BuiltinModel[];
const GRID: Array<Record<string, unknown>> = JSON.parse(
  process.env['HYBRID_GRID'] ??
    '[{"mode":"keyword"},{"mode":"semantic"},{"mode":"hybrid"},{"mode":"hybrid","semanticRatio":0.3},{"mode":"hybrid","semanticRatio":0.2},{"mode":"hybrid","semanticRatio":0.1},{"mode":"hybrid","fusion":"convex"},{"mode":"hybrid","fusion":"convex","semanticRatio":0.3},{"mode":"hybrid","fusion":"convex","semanticRatio":0.2}]',
);
const bench = openBenchEngine('hybrid-sweep');
const rows = new Map<string, Record<string, number>>();
for (const collection of COLLECTIONS) {
  const data = loadCollection(collection);
  for (const model of models) {
    const name = `${collection}-${model}`.replace(/[^a-z0-9-]/g, '');
    await bench.engine.create(
      'default',
      parseCreateIndex({
        name,
        mappings: { title: { type: 'text', analyzer: 'english' }, text: { type: 'text', analyzer: 'english' } },
        settings: { autoEmbed: true, vectorDimensions: 384, embedder: { type: 'builtin', model } },
      }),
    );
    const index = bench.engine.get('default', name);
    const t0 = performance.now();
    await index.upsert(data.docs as unknown as Array<Record<string, unknown>>);
    if (index.trainsEmbedder()) await index.retrainEmbedder();
    const buildMs = round(performance.now() - t0, 1);
    for (const settings of GRID) {
      let sum = 0;
      for (const q of data.queries) {
        const body = searchQuerySchema.parse({ q: q.text, size: K, highlight: false, select: ['id'], ...settings });
        const hits = (await runSearch(index, bench.runner, body)).hits as Array<{ id: string }>;
        sum += ndcgAt(
          K,
          hits.map((h) => h.id),
          data.qrels.get(q.id) ?? new Map(),
        );
      }
      const key = `${model} ${JSON.stringify(settings)}`;
      if (!rows.has(key)) rows.set(key, {});
      rows.get(key)![collection] = round(sum / data.queries.length, 4);
      emit({ bench: 'hybrid-sweep', collection, model, buildMs, settings, ndcg10: rows.get(key)![collection] });
    }
  }
}
await bench.close();
for (const [key, r] of rows) process.stdout.write(`| ${key} | ${COLLECTIONS.map((c) => r[c]?.toFixed(4)).join(' | ')} |\n`);
