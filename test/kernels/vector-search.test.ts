import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKernelRunner, defaultCandidates, KernelInvalidInputError, reference, type KernelRunner, type Metric } from '../../kernels/src/index.js';
import { gaussianVectors, integerVectors, prng } from './support/prng.js';
import { expectCloseTopK, plain } from './support/top-k-assertions.js';

const SIZES = [0, 1, 3, 4, 5, 17, 1023, 10_000];
const DIMS = [1, 3, 128, 384, 768];
const METRICS: Metric[] = ['dot', 'cosine', 'euclidean'];

describe.each(['release', 'debug'] as const)('vector search (%s build)', (build) => {
  let runner: KernelRunner;
  beforeAll(() => {
    runner = createKernelRunner({ threads: 2, build });
  });
  afterAll(() => runner.close());

  // The debug build is unoptimised: it runs every shape but not the largest size.
  const sizes = build === 'release' ? SIZES : SIZES.filter((n) => n <= 1023);

  describe.each(DIMS)('dims %i', (dims) => {
    it.each(sizes)('matches the reference exactly on %i integer vectors, f32 and int8, every metric', (count) => {
      const rand = prng(count * 1000 + dims);
      const data = integerVectors(rand, count, dims);
      const block = runner.loadVectors(data, { dims, quantize: true });
      return (async () => {
        try {
          for (const metric of METRICS) {
            const query = integerVectors(rand, 1, dims);
            // k > n is covered by every size up to 1023; the largest size checks the common k.
            for (const k of count > 1023 ? [10] : [1, 10, count + 5]) {
              const f32 = await runner.vectorSearch({ block, vector: query, metric, k });
              expect(plain(f32)).toEqual(plain(reference.vectorSearch({ vectors: data, dims, query, metric, k })));
              const int8 = await runner.vectorSearch({ block, vector: query, metric, k, quantized: true, candidates: k + 7 });
              expect(plain(int8)).toEqual(
                plain(
                  reference.quantizedVectorSearch({
                    vectors: data,
                    dims,
                    query,
                    metric,
                    k,
                    candidates: k + 7,
                  }),
                ),
              );
            }
          }
        } finally {
          runner.release(block);
        }
      })();
    });
  });
});

describe('vector search edge cases', () => {
  let runner: KernelRunner;
  beforeAll(() => {
    runner = createKernelRunner({ threads: 2 });
  });
  afterAll(() => runner.close());

  it.each([3, 384])('returns a correct top-k on gaussian f32 vectors within rounding (dims %i)', async (dims) => {
    const rand = prng(dims);
    const data = gaussianVectors(rand, 1023, dims);
    const block = runner.loadVectors(data, { dims });
    for (const metric of METRICS) {
      const query = gaussianVectors(rand, 1, dims);
      const actual = await runner.vectorSearch({ block, vector: query, metric, k: 20 });
      const expected = reference.vectorSearch({ vectors: data, dims, query, metric, k: 20 });
      const truth = (id: number): number => reference.exactScore(metric, query, data.subarray(id * dims, (id + 1) * dims));
      expectCloseTopK(actual, expected, truth, (s) => 1e-5 * Math.max(1, Math.abs(s)));
    }
    runner.release(block);
  });

  it('handles NaN-free extremes (1e15 and 1e-20 magnitudes) within rounding', async () => {
    const rand = prng(7);
    const dims = 768;
    const data = gaussianVectors(rand, 300, dims).map((x, i) => x * (i % 2 === 0 ? 1e15 : 1e-20));
    const block = runner.loadVectors(data, { dims });
    for (const metric of METRICS) {
      const query = gaussianVectors(rand, 1, dims).map((x) => x * 1e15);
      const actual = await runner.vectorSearch({ block, vector: query, metric, k: 10 });
      expect(actual.scores.every(Number.isFinite)).toBe(true);
      const expected = reference.vectorSearch({ vectors: data, dims, query, metric, k: 10 });
      const truth = (id: number): number => reference.exactScore(metric, query, data.subarray(id * dims, (id + 1) * dims));
      expectCloseTopK(actual, expected, truth, (s) => 1e-5 * Math.max(1, Math.abs(s)));
    }
    runner.release(block);
  });

  it('orders equal scores by id ascending', async () => {
    const dims = 5;
    // Rows 0..99 cycle through four distinct vectors, so every score is shared by 25 ids.
    const distinct = [
      [1, 0, 0, 0, 0],
      [0, 1, 0, 0, 0],
      [1, 1, 0, 0, 0],
      [2, 0, 0, 0, 0],
    ];
    const data = Float32Array.from({ length: 100 * dims }, (_, i) => distinct[Math.floor(i / dims) % 4]![i % dims]!);
    const block = runner.loadVectors(data, { dims, quantize: true });
    const query = [1, 0, 0, 0, 0];
    const top = await runner.vectorSearch({ block, vector: query, metric: 'dot', k: 30 });
    // dot = 2 for rows 3, 7, ... (25 rows), then 1 for rows 0, 2, 4, 6 ... (first 5 of them).
    const twos = Array.from({ length: 25 }, (_, i) => 4 * i + 3);
    expect(plain(top)).toEqual({ ids: [...twos, 0, 2, 4, 6, 8], scores: [...Array(25).fill(2), ...Array(5).fill(1)] });
    const quantized = await runner.vectorSearch({ block, vector: query, metric: 'dot', k: 30, quantized: true });
    expect(plain(quantized)).toEqual(plain(top));
    for (const metric of METRICS) {
      expect(plain(await runner.vectorSearch({ block, vector: query, metric, k: 60 }))).toEqual(
        plain(reference.vectorSearch({ vectors: data, dims, query, metric, k: 60 })),
      );
    }
    runner.release(block);
  });

  it('returns only ids the filter allows, like the reference', async () => {
    const rand = prng(11);
    const dims = 128;
    const data = integerVectors(rand, 2000, dims);
    const allowed = new Set(Array.from({ length: 2000 }, (_, i) => i).filter(() => rand() < 0.3));
    const block = runner.loadVectors(data, { dims, quantize: true });
    const filter = runner.loadBitsetFromIds(allowed, 2000);
    for (const metric of METRICS) {
      const query = integerVectors(rand, 1, dims);
      const q = { vectors: data, dims, query, metric, k: 15, allowed: (id: number) => allowed.has(id) };
      expect(plain(await runner.vectorSearch({ block, vector: query, metric, k: 15, filter }))).toEqual(plain(reference.vectorSearch(q)));
      expect(plain(await runner.vectorSearch({ block, vector: query, metric, k: 15, filter, quantized: true }))).toEqual(
        plain(reference.quantizedVectorSearch({ ...q, candidates: defaultCandidates(15) })),
      );
    }
    runner.release(block);
    runner.release(filter);
  });

  it('gives identical answers inline and on the pool', async () => {
    const rand = prng(5);
    const dims = 128;
    const data = gaussianVectors(rand, 20_000, dims);
    const block = runner.loadVectors(data, { dims, quantize: true });
    for (const metric of METRICS) {
      const query = gaussianVectors(rand, 1, dims);
      for (const quantized of [false, true]) {
        const inline = await runner.vectorSearch({ block, vector: query, metric, k: 25, quantized, mode: 'inline' });
        const pooled = await runner.vectorSearch({ block, vector: query, metric, k: 25, quantized, mode: 'pool' });
        expect(plain(pooled)).toEqual(plain(inline));
      }
    }
    runner.release(block);
  });

  it('rejects non-finite and malformed input with kernel_invalid_input', async () => {
    const block = runner.loadVectors(new Float32Array(12), { dims: 4 });
    const bad = [
      () => runner.loadVectors([1, 2, Number.NaN, 4], { dims: 4 }),
      () => runner.loadVectors([1, 2, Number.POSITIVE_INFINITY, 4], { dims: 4 }),
      () => runner.loadVectors([1, 2, 3], { dims: 4 }),
      () => runner.loadVectors([1, 2, 3, 4], { dims: 0 }),
      () => runner.vectorSearch({ block, vector: [1, 2, Number.NaN, 4], metric: 'dot', k: 1 }),
      () => runner.vectorSearch({ block, vector: [1, 2, 3], metric: 'dot', k: 1 }),
      () => runner.vectorSearch({ block, vector: [1, 2, 3, 4], metric: 'dot', k: 0 }),
      () => runner.vectorSearch({ block, vector: [1, 2, 3, 4], metric: 'dot', k: 1.5 }),
      () => runner.vectorSearch({ block, vector: [1, 2, 3, 4], metric: 'manhattan' as Metric, k: 1 }),
      () => runner.vectorSearch({ block, vector: [1, 2, 3, 4], metric: 'dot', k: 1, quantized: true }),
    ];
    for (const call of bad) {
      const rejection = (async () => call())();
      await expect(rejection).rejects.toBeInstanceOf(KernelInvalidInputError);
      await expect(rejection).rejects.toMatchObject({ code: 'kernel_invalid_input', status: 400 });
    }
    await expect(runner.vectorSearch({ block, vector: [1, 2, 3, 4], metric: 'dot', k: 1 })).resolves.toBeDefined();
    runner.release(block);
  });
});
