import { standardAnalyzer } from '../analysis/analyzer.js';
import { projectFeatures } from './feature-hashing.js';

/**
 * `hashed-ngrams-v1`, the first built-in embedder, kept so that vectors stored by it are still
 * queried the same way (a stored `embedder: {type: "builtin"}` without `model` means v1). A text's
 * features are its words (standard analysis) and the character trigrams of each word padded with
 * boundary marks, weighted by sub-linear term frequency (1 + ln tf; words count double, as they
 * carry more meaning than any one trigram), hashed into `dims` signed buckets
 * (feature-hashing.ts). There is no idf: every word weighs the same, "the" as much as "flutter".
 * New indexes use `hashed-ngrams-v2` (hashed-ngrams-v2.ts).
 */
export const HASHED_EMBEDDER = 'hashed-ngrams-v1';

export function embedText(text: string, dims: number): Float32Array {
  const counts = new Map<string, number>();
  const bump = (feature: string, by: number): void => {
    counts.set(feature, (counts.get(feature) ?? 0) + by);
  };
  for (const token of standardAnalyzer.analyze(text)) {
    bump(`w:${token.term}`, 2);
    const padded = `^${token.term}$`;
    for (let i = 0; i + 3 <= padded.length; i++) bump(`g:${padded.slice(i, i + 3)}`, 1);
  }
  const weights = new Map<string, number>();
  for (const [feature, tf] of counts) weights.set(feature, 1 + Math.log(tf));
  return projectFeatures(weights, dims);
}
