import { standardAnalyzer, type Analyzer } from '../analysis/analyzer.js';
import { projectFeatures } from './feature-hashing.js';
import { englishStopWords } from '../analysis/stop-words.js';

/**
 * `hashed-ngrams-v2`, the default built-in embedder: no model, no download, deterministic, and
 * 30,000-50,000 texts a second on one core (384 dimensions, WordNet glosses). Features are the
 * index's own analysed terms (the analyzers of its text fields, so stems line up with keyword
 * search) minus Lucene's English stop words, and
 * the character trigrams of each term padded with boundary marks (`^wing$` -> `^wi`, `win`, `ing`,
 * `ng$`). A word weighs 1 + ln tf; a trigram 1/4 of that, times the mean weight of the words it
 * came from. Features are hashed into `dims` signed buckets and L2-normalised (feature-hashing.ts).
 *
 * Idf sits on the query side only (SMART lnc.ltc): a document vector is its sub-linear tf alone,
 * the query's terms are weighted by `1 + ln((N + 1) / (df + 1))` from the index's statistics at
 * query time (its live segments, df the most any one text field has). A document's vector
 * therefore never goes stale as the corpus grows, does not depend on what else was in its batch,
 * and the very first bulk load needs no statistics at all; the query always sees the current
 * ones. In the Cranfield measurements behind this choice, idf on both sides (ltc.ltc) was no
 * better: within the hash noise of lnc.ltc at 384 dimensions, and below it without hashing
 * (semantic nDCG@10 0.348 against 0.370). bench/search/hybrid.ts measures the result.
 *
 * Good for: lexical similarity weighted by informativeness, morphology and misspellings (via
 * trigrams), and a vector side for hybrid search without any external service. Not for: meaning
 * beyond shared character material (no synonyms, no paraphrase); and at small `dims` hash
 * collisions blur the ranking (noise of about 1/sqrt(dims) in each cosine), so as a ranker of its
 * own it stays below BM25. Use client vectors or the OpenAI-compatible embedder for meaning.
 */
export const HASHED_NGRAMS_V2 = 'hashed-ngrams-v2';

const TRIGRAM_WEIGHT = 0.25;

/** What the query side needs of the index it searches (embedding-corpus.ts adds a trained model). */
export interface QueryStatistics {
  /** The analyzers of the index's text fields, each once; features are their terms. */
  analyzers: readonly Analyzer[];
  /** Documents the statistics count (deleted versions too until a merge, as BM25's N). */
  docCount: number;
  /** Documents holding `term`, in the text field where it is most frequent. */
  docFreq(term: string): number;
}

/** No index: standard analysis and no statistics, so every term weighs the same. */
export const emptyCorpus: QueryStatistics = { analyzers: [standardAnalyzer], docCount: 0, docFreq: () => 0 };

/** Term frequencies without stop words; a term two analyzers both produce counts once (the larger count). */
export function termCounts(text: string, analyzers: readonly Analyzer[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const analyzer of analyzers) {
    const own = new Map<string, number>();
    for (const token of analyzer.analyze(text)) {
      if (englishStopWords.has(token.term)) continue;
      own.set(token.term, (own.get(token.term) ?? 0) + 1);
    }
    for (const [term, tf] of own) if (tf > (counts.get(term) ?? 0)) counts.set(term, tf);
  }
  return counts;
}

function features(counts: ReadonlyMap<string, number>, idf: (term: string) => number): Map<string, number> {
  const weights = new Map<string, number>();
  const trigrams = new Map<string, { count: number; weight: number }>();
  for (const [term, tf] of counts) {
    const w = idf(term);
    weights.set(`w:${term}`, (1 + Math.log(tf)) * w);
    const padded = `^${term}$`;
    for (let i = 0; i + 3 <= padded.length; i++) {
      const key = `g:${padded.slice(i, i + 3)}`;
      const t = trigrams.get(key);
      if (t) {
        t.count += tf;
        t.weight += tf * w;
      } else trigrams.set(key, { count: tf, weight: tf * w });
    }
  }
  for (const [key, t] of trigrams) weights.set(key, TRIGRAM_WEIGHT * (1 + Math.log(t.count)) * (t.weight / t.count));
  return weights;
}

/** A document's weighted features before hashing: sub-linear tf, no idf (the "lnc" side). */
export function documentFeatures(text: string, analyzers: readonly Analyzer[] = emptyCorpus.analyzers): Map<string, number> {
  return features(termCounts(text, analyzers), () => 1);
}

/** A query's weighted features before hashing: sub-linear tf times smoothed idf (the "ltc" side). */
export function queryFeatures(text: string, corpus: QueryStatistics = emptyCorpus): Map<string, number> {
  const n = corpus.docCount;
  return features(termCounts(text, corpus.analyzers), (term) => 1 + Math.log((n + 1) / (corpus.docFreq(term) + 1)));
}

export function embedDocument(text: string, dims: number, analyzers?: readonly Analyzer[]): Float32Array {
  return projectFeatures(documentFeatures(text, analyzers), dims);
}

export function embedQuery(text: string, dims: number, corpus?: QueryStatistics): Float32Array {
  return projectFeatures(queryFeatures(text, corpus), dims);
}
