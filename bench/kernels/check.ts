import type { TopK } from '../../kernels/src/index.js';

export class BenchCheckError extends Error {
  readonly code = 'bench_check_failed';
}

/** Exact agreement (kernels whose reference reproduces their f32 arithmetic). */
export function checkSame(name: string, actual: TopK, expected: TopK): void {
  const same = actual.ids.length === expected.ids.length && actual.ids.every((id, i) => id === expected.ids[i] && actual.scores[i] === expected.scores[i]);
  if (!same) throw new BenchCheckError(`${name}: kernel answer differs from the reference`);
}

/**
 * Agreement up to f32 summation order: same length, scores position by position within a relative
 * tolerance, and at least `minOverlap` of the ids in common (near-ties may swap at the boundary).
 */
export function checkClose(name: string, actual: TopK, expected: TopK, minOverlap = 0.9): void {
  if (actual.ids.length !== expected.ids.length) throw new BenchCheckError(`${name}: length differs`);
  actual.scores.forEach((s, i) => {
    const e = expected.scores[i]!;
    if (Math.abs(s - e) > 1e-4 * Math.max(1, Math.abs(e))) {
      throw new BenchCheckError(`${name}: score ${i} is ${s}, reference ${e}`);
    }
  });
  const ids = new Set(expected.ids);
  const overlap = [...actual.ids].filter((id) => ids.has(id)).length / Math.max(1, ids.size);
  if (overlap < minOverlap) throw new BenchCheckError(`${name}: only ${overlap} of ids agree with the reference`);
}
