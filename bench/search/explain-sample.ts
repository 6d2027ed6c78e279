// One hybrid hit's `explain` at the defaults on Cranfield, for docs/search-query.md:
// `node dist/bench/search/explain-sample.js`.
import 'reflect-metadata';
import { parseCreateIndex } from '../../plugins/search/index/mappings.js';
import { runSearch, searchQuerySchema } from '../../plugins/search/search/search.js';
import { openBenchEngine } from '../support/engine.js';
import { loadCollection } from './data.js';

const bench = openBenchEngine('explain-sample');
const data = loadCollection('cranfield');
await bench.engine.create(
  'default',
  parseCreateIndex({
    name: 'c',
    mappings: { title: { type: 'text', analyzer: 'english' }, text: { type: 'text', analyzer: 'english' } },
    settings: { autoEmbed: true },
  }),
);
const index = bench.engine.get('default', 'c');
await index.upsert(data.docs as unknown as Array<Record<string, unknown>>);
if (index.embedderTrainingDue()) await index.retrainEmbedder();
const q = data.queries[0]!.text;
const result = await runSearch(index, bench.runner, searchQuerySchema.parse({ q, mode: 'hybrid', size: 3, explain: true, highlight: false, select: ['id'] }));
process.stdout.write(`${JSON.stringify({ q, hits: result.hits }, null, 1)}\n`);
await bench.close();
