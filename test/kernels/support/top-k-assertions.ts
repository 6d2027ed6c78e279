import { expect } from 'vitest';
import type { TopK } from '../../../kernels/src/index.js';

/** Plain arrays, so a failing toEqual prints readable ids and scores. */
export const plain = (t: TopK): { ids: number[]; scores: number[] } => ({ ids: [...t.ids], scores: [...t.scores] });

/**
 * For float inputs the kernels sum in SIMD lanes and the reference sums left to right, so scores
 * differ in the last bits and near-ties may swap. This asserts the whole answer is a correct top-k
 * up to that rounding: same length, each position's score close to the reference's, each returned
 * id's reported score close to its true score, ids distinct and ranked best first.
 */
export function expectCloseTopK(actual: TopK, expected: TopK, trueScore: (id: number) => number, tolerance: (score: number) => number): void {
  expect(actual.ids.length).toBe(expected.ids.length);
  expect(new Set(actual.ids).size).toBe(actual.ids.length);
  for (let i = 0; i < actual.ids.length; i++) {
    const e = expected.scores[i]!;
    expect(Math.abs(actual.scores[i]! - e)).toBeLessThanOrEqual(tolerance(e));
    const t = trueScore(actual.ids[i]!);
    expect(Math.abs(actual.scores[i]! - t)).toBeLessThanOrEqual(tolerance(t));
    if (i > 0) expect(actual.scores[i]!).toBeLessThanOrEqual(actual.scores[i - 1]!);
  }
}
