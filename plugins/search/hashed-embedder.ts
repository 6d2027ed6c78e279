import { standardAnalyzer } from './analyzer.js';

/**
 * `hashed-ngrams-v1`, the built-in embedder: no model, no download, deterministic. A text's
 * features are its words (standard analysis) and the character trigrams of each word padded with
 * boundary marks, weighted by sub-linear term frequency (1 + ln tf; words count double, as they
 * carry more meaning than any one trigram). Each feature is hashed (FNV-1a, 32 bit) to one of
 * `dims` buckets with a sign from a second hash: the hashing trick, a sparse random projection
 * that preserves dot products in expectation. The result is L2-normalised, so dot product and
 * cosine agree.
 *
 * What it is good for: lexical and morphological similarity (shared words and word pieces:
 * "aerodynamic" near "aerodynamics", misspellings, compounds) and as the vector side of hybrid
 * search without any external service. What it is not: it knows no synonyms or meaning beyond
 * shared character material; use the OpenAI-compatible embedder for that.
 */
export const HASHED_EMBEDDER = 'hashed-ngrams-v1';

function fnv1a(text: string, seed: number): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

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
  const vector = new Float32Array(dims);
  for (const [feature, tf] of counts) {
    const bucket = fnv1a(feature, 0) % dims;
    const sign = fnv1a(feature, 0x9e3779b9) & 1 ? 1 : -1;
    vector[bucket]! += sign * (1 + Math.log(tf));
  }
  let norm = 0;
  for (let i = 0; i < dims; i++) norm += vector[i]! * vector[i]!;
  if (norm > 0) {
    const scale = 1 / Math.sqrt(norm);
    for (let i = 0; i < dims; i++) vector[i]! *= scale;
  }
  return vector;
}
