import { parseCreateIndex } from '../../plugins/search/index/mappings.js';
import { runSearch, searchQuerySchema } from '../../plugins/search/search/search.js';
import type { SearchIndex } from '../../plugins/search/index/search-index.js';
import { openBenchEngine, type BenchEngine } from '../support/engine.js';
import type { BenchDoc } from './adapter.js';

export interface TesseraVariant {
  name: string;
  description: string;
  /** The index searched: title and text as two fields, or the same text joined in one field. */
  index: 'fields' | 'joined' | 'hashed';
  /** Request body keys on top of `{q, size, highlight: false, select: ['id']}`. */
  body: Record<string, unknown>;
  /** Off to measure what counting a repeated query word once costs (not an API option). */
  queryTermFrequency?: false;
}

/** Tessera's rows of the relevance table; the first is the product's defaults. */
export const TESSERA_VARIANTS: TesseraVariant[] = [
  { name: 'tessera', description: 'keyword, defaults (title and text as two english fields: fieldScoring bm25f)', index: 'fields', body: {} },
  { name: 'tessera-sum', description: 'keyword, fieldScoring sum', index: 'fields', body: { fieldScoring: 'sum' } },
  { name: 'tessera-best', description: 'keyword, fieldScoring best (dis-max, tieBreaker 0)', index: 'fields', body: { fieldScoring: 'best' } },
  {
    name: 'tessera-best-0.3',
    description: 'keyword, fieldScoring best, tieBreaker 0.3',
    index: 'fields',
    body: { fieldScoring: 'best', tieBreaker: 0.3 },
  },
  {
    name: 'tessera-bm25f-once',
    description: 'keyword, bm25f, a repeated query word counted once',
    index: 'fields',
    body: {},
    queryTermFrequency: false,
  },
  {
    name: 'tessera-sum-once',
    description: 'keyword, sum, a repeated query word counted once (the scoring before BM25F)',
    index: 'fields',
    body: { fieldScoring: 'sum' },
    queryTermFrequency: false,
  },
  { name: 'tessera-one-field', description: 'keyword, defaults, title and text joined in one english field', index: 'joined', body: {} },
  {
    name: 'tessera-semantic',
    description: 'semantic, autoEmbed with the default built-in embedder (corpus-lsa-v1)',
    index: 'fields',
    body: { mode: 'semantic' },
  },
  {
    name: 'tessera-hybrid',
    description: 'hybrid at its defaults (convex, semanticRatio 0.3), autoEmbed with the default built-in embedder (corpus-lsa-v1)',
    index: 'fields',
    body: { mode: 'hybrid' },
  },
  {
    name: 'tessera-hybrid-rrf-0.5',
    description: 'hybrid, fusion rrf, semanticRatio 0.5 (the fusion defaults before), corpus-lsa-v1',
    index: 'fields',
    body: { mode: 'hybrid', fusion: 'rrf', semanticRatio: 0.5 },
  },
  {
    name: 'tessera-hybrid-convex-0.5',
    description: 'hybrid, fusion convex, semanticRatio 0.5, corpus-lsa-v1',
    index: 'fields',
    body: { mode: 'hybrid', semanticRatio: 0.5 },
  },
  { name: 'tessera-semantic-hashed', description: 'semantic, hashed-ngrams-v2 (the default embedder before)', index: 'hashed', body: { mode: 'semantic' } },
  {
    name: 'tessera-hybrid-hashed-before',
    description: 'hybrid, rrf, semanticRatio 0.5, hashed-ngrams-v2: the defaults before',
    index: 'hashed',
    body: { mode: 'hybrid', fusion: 'rrf', semanticRatio: 0.5 },
  },
  {
    name: 'tessera-hybrid-hashed',
    description: 'hybrid at its defaults on hashed-ngrams-v2 (lexical: ratio 0, keyword ranking kept)',
    index: 'hashed',
    body: { mode: 'hybrid' },
  },
  {
    name: 'tessera-hybrid-hashed-0.3',
    description: 'hybrid, convex, semanticRatio 0.3 given, hashed-ngrams-v2',
    index: 'hashed',
    body: { mode: 'hybrid', semanticRatio: 0.3 },
  },
];

/**
 * Tessera in-process (bench/support/engine.ts) with three indexes of the same documents: `fields`
 * maps title and text as english text fields with autoEmbed on the default built-in embedder,
 * trained once loaded as the plugin's background job does (corpus-lsa.ts, trainingDue); `hashed`
 * the same with hashed-ngrams-v2, the default before; `joined` holds `title\ntext` in one english
 * field. Every query goes through runSearch, the function behind `POST /v1/indexes/{name}/search`.
 */
export class TesseraRelevance {
  private bench: BenchEngine = openBenchEngine('relevance');
  private indexes: Partial<Record<TesseraVariant['index'], SearchIndex>> = {};

  async build(docs: BenchDoc[]): Promise<void> {
    const { engine } = this.bench;
    await engine.create(
      'default',
      parseCreateIndex({
        name: 'fields',
        mappings: { title: { type: 'text', analyzer: 'english' }, text: { type: 'text', analyzer: 'english' } },
        settings: { autoEmbed: true, vectorDimensions: 384 },
      }),
    );
    await engine.create(
      'default',
      parseCreateIndex({
        name: 'hashed',
        mappings: { title: { type: 'text', analyzer: 'english' }, text: { type: 'text', analyzer: 'english' } },
        settings: { autoEmbed: true, vectorDimensions: 384, embedder: { type: 'builtin', model: 'hashed-ngrams-v2' } },
      }),
    );
    await engine.create('default', parseCreateIndex({ name: 'joined', mappings: { body: { type: 'text', analyzer: 'english' } } }));
    this.indexes.fields = engine.get('default', 'fields');
    this.indexes.hashed = engine.get('default', 'hashed');
    this.indexes.joined = engine.get('default', 'joined');
    for (const [index, batch] of [
      [this.indexes.fields, docs],
      [this.indexes.hashed, docs],
      [this.indexes.joined, docs.map((d) => ({ id: d.id, body: `${d.title}\n${d.text}` }))],
    ] as const) {
      const result = await index.upsert(batch as Array<Record<string, unknown>>);
      if (result.errors.length > 0) throw new Error(`tessera rejected documents: ${JSON.stringify(result.errors.slice(0, 3))}`);
      if (index.embedderTrainingDue()) {
        const started = performance.now();
        await index.retrainEmbedder();
        this.trainingMs = performance.now() - started;
      }
    }
  }

  /** The last build's training and re-embedding of the `fields` index (ms). */
  trainingMs: number | undefined;

  async search(variant: TesseraVariant, q: string, k: number): Promise<string[]> {
    const body = searchQuerySchema.parse({ q, size: k, highlight: false, select: ['id'], ...variant.body });
    const index = this.indexes[variant.index]!;
    const query = variant.queryTermFrequency === false ? { ...body, queryTermFrequency: false } : body;
    const result = await runSearch(index, this.bench.runner, query);
    return result.hits.map((h) => (h as { id: string }).id);
  }

  async close(): Promise<void> {
    await this.bench.close();
  }
}
