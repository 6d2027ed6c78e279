import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKernelRunner, reference, type KernelRunner } from '../../kernels/src/index.js';
import { prng, randInt } from './support/prng.js';
import { plain } from './support/top-k-assertions.js';

const SIZES = [0, 1, 3, 4, 5, 17, 1023, 10_000];

/** A ranked list of distinct ids drawn from [0, idSpace). */
function rankedList(rand: () => number, length: number, idSpace: number): Uint32Array {
  const ids = new Set<number>();
  while (ids.size < Math.min(length, idSpace)) ids.add(randInt(rand, 0, idSpace - 1));
  return Uint32Array.from(ids);
}

describe.each(['release', 'debug'] as const)('rrf (%s build)', (build) => {
  let runner: KernelRunner;
  beforeAll(() => {
    runner = createKernelRunner({ threads: 2, build });
  });
  afterAll(() => runner.close());

  it.each(SIZES)('matches the reference exactly for lists of %i ids, weighted and unweighted', async (length) => {
    const rand = prng(length + 1);
    const idSpace = Math.max(1, length * 2);
    const lists = [0, 1, 2].map(() => rankedList(rand, length, idSpace));
    for (const weights of [undefined, [1, 0.5, 2]]) {
      for (const k of [1, 10, length * 3 + 5]) {
        for (const rankConstant of [60, 1]) {
          const q = { lists, k, rankConstant, ...(weights ? { weights } : {}) };
          expect(plain(await runner.rrf(q))).toEqual(plain(reference.rrfFuse(q)));
        }
      }
    }
  });

  it('fuses a known example: an id ranked well in both lists wins', async () => {
    const top = await runner.rrf({
      lists: [
        [5, 7, 9],
        [7, 5, 1],
      ],
      k: 4,
    });
    // 5 and 7 both score 1/61 + 1/62; the tie goes to the lower id. Then 9 (1/63) before 1 (1/63).
    expect([...top.ids]).toEqual([5, 7, 1, 9]);
    expect(top.scores[0]).toBe(Math.fround(Math.fround(Math.fround(1 / 61) + Math.fround(1 / 62))));
  });

  it('gives the same answer inline and on the pool, with a large sparse id space', async () => {
    const rand = prng(9);
    const lists = [rankedList(rand, 1000, 5_000_000), rankedList(rand, 1000, 5_000_000)];
    const q = { lists, k: 20, idSpace: 5_000_000 };
    const inline = plain(await runner.rrf({ ...q, mode: 'inline' }));
    expect(plain(await runner.rrf({ ...q, mode: 'pool' }))).toEqual(inline);
    expect(inline).toEqual(plain(reference.rrfFuse(q)));
  });

  it('rejects bad input with kernel_invalid_input', async () => {
    const invalid = [
      { lists: [[1, 2]], k: 0 },
      { lists: [[1, -2]], k: 1 },
      { lists: [[1, 2.5]], k: 1 },
      { lists: [[1, 2]], k: 1, weights: [Number.NaN] },
      { lists: [[1, 2]], k: 1, weights: [1, 1] },
      { lists: [[1, 2]], k: 1, rankConstant: -1 },
      { lists: [[1, 2]], k: 1, idSpace: 2 },
    ];
    for (const q of invalid) await expect(runner.rrf(q)).rejects.toMatchObject({ code: 'kernel_invalid_input' });
  });
});
