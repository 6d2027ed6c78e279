export { prng } from '../../helpers/prng.js';

/** Integer in [lo, hi]. */
export const randInt = (rand: () => number, lo: number, hi: number): number => lo + Math.floor(rand() * (hi - lo + 1));

/**
 * Small integers as f32: every dot product and squared distance of such vectors is exact in f32,
 * whatever the summation order, so the kernels must match the reference bit for bit.
 */
export function integerVectors(rand: () => number, count: number, dims: number, range = 8): Float32Array {
  const out = new Float32Array(count * dims);
  for (let i = 0; i < out.length; i++) out[i] = randInt(rand, -range, range);
  return out;
}

export function gaussianVectors(rand: () => number, count: number, dims: number): Float32Array {
  const out = new Float32Array(count * dims);
  for (let i = 0; i < out.length; i++) {
    out[i] = Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
  }
  return out;
}
