/** FNV-1a, 32 bit, over UTF-16 code units; `seed` is XORed into the offset basis. */
export function fnv1a(text: string, seed: number): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/**
 * The hashing trick: each weighted feature is added to one of `dims` buckets (FNV-1a) with a sign
 * from a second hash, a sparse signed random projection that preserves dot products in
 * expectation; the result is L2-normalised so dot product and cosine agree. Colliding features add
 * noise of about 1/sqrt(dims) to a cosine, which is what limits small dimensions.
 */
export function projectFeatures(weights: ReadonlyMap<string, number>, dims: number): Float32Array {
  const vector = new Float32Array(dims);
  for (const [feature, weight] of weights) {
    const bucket = fnv1a(feature, 0) % dims;
    const sign = fnv1a(feature, 0x9e3779b9) & 1 ? 1 : -1;
    vector[bucket]! += sign * weight;
  }
  let norm = 0;
  for (let i = 0; i < dims; i++) norm += vector[i]! * vector[i]!;
  if (norm > 0) {
    const scale = 1 / Math.sqrt(norm);
    for (let i = 0; i < dims; i++) vector[i]! *= scale;
  }
  return vector;
}
