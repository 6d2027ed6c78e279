import type { TopK } from '../../kernels/src/index.js';

/**
 * Hand-tuned JS for context: a tight dot-product loop over the Float32Array with an insertion
 * top-k. The reference is written for clarity (rows as arrays, a full sort), so this is the fairer
 * "how much does WASM SIMD buy over good JS" figure.
 */
export function plainJsDotTopK(vectors: Float32Array, dims: number, query: Float32Array, k: number): TopK {
  const count = vectors.length / dims;
  const ids = new Uint32Array(k);
  const scores = new Float32Array(k).fill(Number.NEGATIVE_INFINITY);
  let size = 0;
  for (let r = 0; r < count; r++) {
    const base = r * dims;
    let s = 0;
    for (let j = 0; j < dims; j++) s += vectors[base + j]! * query[j]!;
    if (size === k && s <= scores[k - 1]!) continue;
    let i = size < k ? size++ : k - 1;
    while (i > 0 && scores[i - 1]! < s) {
      scores[i] = scores[i - 1]!;
      ids[i] = ids[i - 1]!;
      i--;
    }
    scores[i] = s;
    ids[i] = r;
  }
  return { ids: ids.slice(0, size), scores: scores.slice(0, size) };
}
