import { standardAnalyzer, type Analyzer } from '../analysis/analyzer.js';
import type { CollectionStatistics } from '../index/collection-statistics.js';
import type { CorpusLsaModel } from './corpus-lsa.js';
import type { QueryStatistics } from './hashed-ngrams-v2.js';

/** What the built-in embedders read of the index they embed for. */
export interface EmbeddingCorpus extends QueryStatistics {
  /** The term model trained from the index (corpus-lsa-v1), once trained; frozen until retrained. */
  model?: CorpusLsaModel;
}

/**
 * The index's statistics as the built-in embedder's query side reads them: N and df from the
 * collection statistics BM25 uses (collection-statistics.ts), a term's df the largest of the
 * index's text fields', and the analyzers of those fields, each once.
 */
export function embeddingCorpus(statistics: CollectionStatistics, fields: ReadonlyArray<{ field: string; analyzer: Analyzer }>): EmbeddingCorpus {
  const distinct = [...new Map(fields.map((f) => [f.analyzer.name, f.analyzer])).values()];
  const names = fields.map((f) => f.field);
  return {
    analyzers: distinct.length > 0 ? distinct : [standardAnalyzer],
    docCount: statistics.docCount,
    docFreq: (term) => statistics.maxDocFreq(term, names),
  };
}
