import { standardAnalyzer, type Analyzer } from '../analysis/analyzer.js';
import type { EmbeddingCorpus } from '../embedders/hashed-ngrams-v2.js';
import type { LoadedSegment } from './search-index.js';
import { lookup } from './segment.js';

/**
 * The index's statistics as the built-in embedder's query side reads them: N and df over the live
 * segments, counted as search-keyword.ts counts them for BM25 (deleted versions until a merge drops
 * them). A term's df is the largest of its text fields' (a lower bound of "documents with the term
 * in any field" that needs no union of postings). Each df is looked up once per corpus object.
 */
export function termStatistics(segments: readonly LoadedSegment[], fields: ReadonlyArray<{ field: string; analyzer: Analyzer }>): EmbeddingCorpus {
  const distinct = [...new Map(fields.map((f) => [f.analyzer.name, f.analyzer])).values()];
  const analyzers = distinct.length > 0 ? distinct : [standardAnalyzer];
  let docCount = 0;
  for (const seg of segments) docCount += seg.data.docCount;
  const cache = new Map<string, number>();
  return {
    analyzers,
    docCount,
    docFreq(term) {
      const cached = cache.get(term);
      if (cached !== undefined) return cached;
      let best = 0;
      for (const { field } of fields) {
        let df = 0;
        for (const seg of segments) {
          const text = seg.data.text[field];
          if (!text) continue;
          const i = lookup(text.terms, term);
          if (i !== -1) df += text.termStarts[i + 1]! - text.termStarts[i]!;
        }
        if (df > best) best = df;
      }
      cache.set(term, best);
      return best;
    },
  };
}
