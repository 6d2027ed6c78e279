import { lookup, type SegmentData } from './segment.js';

/**
 * An index's collection statistics as of one set of segments, computed once and shared by every
 * reader: BM25 (N, average field lengths, document frequencies) and the built-in embedders' query
 * side (N and a term's document frequency). Deleted and replaced versions count in N and in df
 * until a merge drops them, as in Lucene (maxDoc and docFreq): counting them in one but not the
 * other would let df exceed N and the idf go negative.
 *
 * The index keeps one object per segment set (a write or merge makes a new one), so a term's df is
 * looked up once per segment set, not once per query or per segment.
 */
export interface CollectionStatistics {
  /** Documents of every segment, deleted versions included (BM25's N). */
  readonly docCount: number;
  /** Mean length of `field` in tokens (at least 1e-6, so a field nobody holds divides safely). */
  avgFieldLength(field: string): number;
  /** Documents whose `field` holds `term`. */
  docFreq(field: string, term: string): number;
  /**
   * The largest of `fields`' document frequencies for `term`: BM25F's df over the combined field
   * (Lucene's CombinedFieldQuery) and the embedders' df, a lower bound of "documents with the term
   * in any field" that needs no union of postings.
   */
  maxDocFreq(term: string, fields: readonly string[]): number;
}

/** Cached (field, term) frequencies past this are dropped and counted again when asked. */
const MAX_CACHED = 200_000;

export function collectionStatistics(segments: ReadonlyArray<{ data: SegmentData }>): CollectionStatistics {
  let docCount = 0;
  for (const seg of segments) docCount += seg.data.docCount;
  const avgdl = new Map<string, number>();
  const cache = new Map<string, number>();
  const docFreq = (field: string, term: string): number => {
    const key = `${field}\u0000${term}`;
    const cached = cache.get(key);
    if (cached !== undefined) return cached;
    let count = 0;
    for (const seg of segments) {
      const text = seg.data.text[field];
      if (!text) continue;
      const i = lookup(text.terms, term);
      if (i !== -1) count += text.termStarts[i + 1]! - text.termStarts[i]!;
    }
    if (cache.size >= MAX_CACHED) cache.clear();
    cache.set(key, count);
    return count;
  };
  return {
    docCount,
    avgFieldLength(field) {
      let avg = avgdl.get(field);
      if (avg === undefined) {
        let sum = 0;
        for (const seg of segments) sum += seg.data.text[field]?.sumLength ?? 0;
        avgdl.set(field, (avg = Math.max(sum / docCount, 1e-6)));
      }
      return avg;
    },
    docFreq,
    maxDocFreq(term, fields) {
      let best = 0;
      for (const field of fields) {
        const df = docFreq(field, term);
        if (df > best) best = df;
      }
      return best;
    },
  };
}
