import { describe, expect, it } from 'vitest';
import { mergeTopK, reference } from '../../kernels/src/index.js';
import { prng, randInt } from './support/prng.js';
import { plain } from './support/top-k-assertions.js';

describe('mergeTopK', () => {
  it('equals a sort of the union, with ties broken by id, for random chunked lists', () => {
    const rand = prng(8);
    for (let trial = 0; trial < 200; trial++) {
      const entries = Array.from({ length: randInt(rand, 0, 60) }, (_, id) => ({ id, score: randInt(rand, 0, 5) }));
      const chunks = [0, 1, 2].map((c) =>
        reference.topKBySort(
          entries.filter((e) => e.id % 3 === c),
          1000,
        ),
      );
      const k = randInt(rand, 1, 70);
      expect(plain(mergeTopK(chunks, k))).toEqual(plain(reference.topKBySort(entries, k)));
    }
  });

  it('returns an empty answer for no lists', () => {
    expect(plain(mergeTopK([], 5))).toEqual({ ids: [], scores: [] });
  });
});
