// Profile of one training and re-embedding (what the plugin's background job runs), on one collection:
// `node --cpu-prof dist/bench/search/prof-train.js nfcorpus_pp`.
import 'reflect-metadata';
import { parseCreateIndex } from '../../plugins/search/index/mappings.js';
import { openBenchEngine } from '../support/engine.js';
import { loadCollection, type CollectionName } from './data.js';

const collection = (process.argv[2] ?? 'cranfield') as CollectionName;
const bench = openBenchEngine('prof-train');
const data = loadCollection(collection);
await bench.engine.create(
  'default',
  parseCreateIndex({
    name: 'p',
    mappings: { title: { type: 'text', analyzer: 'english' }, text: { type: 'text', analyzer: 'english' } },
    settings: { autoEmbed: true },
  }),
);
const index = bench.engine.get('default', 'p');
await index.upsert(data.docs as unknown as Array<Record<string, unknown>>);
const t0 = performance.now();
await index.retrainEmbedder();
process.stdout.write(`${JSON.stringify({ collection, docs: data.docs.length, retrainMs: Math.round(performance.now() - t0) })}\n`);
await bench.close();
