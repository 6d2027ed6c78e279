import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKernelRunner, type KernelRunner, type Metric, type VectorBlock } from '../../kernels/src/index.js';
import { gaussianVectors, prng } from './support/prng.js';
import { MNIST_DIR, mnistAvailable, readVecs } from './support/texmex.js';

const K = 10;

async function recallAgainstF32(runner: KernelRunner, block: VectorBlock, queries: Float32Array, metric: Metric): Promise<number> {
  const dims = block.dims;
  let hits = 0;
  const count = queries.length / dims;
  for (let q = 0; q < count; q++) {
    const vector = queries.subarray(q * dims, (q + 1) * dims);
    const exact = await runner.vectorSearch({ block, vector, metric, k: K, mode: 'inline' });
    const approx = await runner.vectorSearch({ block, vector, metric, k: K, quantized: true, mode: 'inline' });
    const truth = new Set(exact.ids);
    hits += [...approx.ids].filter((id) => truth.has(id)).length;
  }
  return hits / (count * K);
}

describe('int8 search with f32 rescoring', () => {
  let runner: KernelRunner;
  beforeAll(() => {
    runner = createKernelRunner({ threads: 0 });
  });
  afterAll(() => runner.close());

  it.each(['dot', 'cosine', 'euclidean'] as const)('reaches recall@10 >= 0.99 against exact f32 on 20k random 128-d vectors (%s)', async (metric) => {
    const rand = prng(99);
    const block = runner.loadVectors(gaussianVectors(rand, 20_000, 128), { dims: 128, quantize: true });
    const recall = await recallAgainstF32(runner, block, gaussianVectors(rand, 200, 128), metric);
    runner.release(block);
    expect(recall).toBeGreaterThanOrEqual(0.99);
  });

  describe.skipIf(!mnistAvailable())('on mnist10k (../shared/data/vectors/mnist10k)', () => {
    if (!mnistAvailable()) console.warn(`mnist10k not found at ${fileURLToPath(MNIST_DIR)}: skipping its recall test`);
    let block: VectorBlock;
    let queries: Float32Array;
    beforeAll(() => {
      const base = readVecs(fileURLToPath(new URL('base.fvecs.gz', MNIST_DIR)), 'f');
      queries = readVecs(fileURLToPath(new URL('query.fvecs.gz', MNIST_DIR)), 'f').data as Float32Array;
      block = runner.loadVectors(base.data, { dims: base.dims, quantize: true });
    });

    it.each([
      ['euclidean', 'groundtruth_l2.ivecs'],
      ['cosine', 'groundtruth_cos.ivecs'],
    ] as const)('exact f32 agrees with the published %s ground truth and int8 reaches recall@10 >= 0.99', async (metric, gtFile) => {
      const gt = readVecs(fileURLToPath(new URL(gtFile, MNIST_DIR)), 'i');
      const dims = block.dims;
      let exactHits = 0;
      let int8Hits = 0;
      const n = queries.length / dims;
      for (let q = 0; q < n; q++) {
        const vector = queries.subarray(q * dims, (q + 1) * dims);
        const exact = await runner.vectorSearch({ block, vector, metric, k: K });
        const approx = await runner.vectorSearch({ block, vector, metric, k: K, quantized: true });
        const truth = new Set(gt.data.subarray(q * gt.dims, q * gt.dims + K));
        exactHits += [...exact.ids].filter((id) => truth.has(id)).length;
        const exactIds = new Set(exact.ids);
        int8Hits += [...approx.ids].filter((id) => exactIds.has(id)).length;
      }
      // Pixel vectors have exact ties at the 10th place, which the two tools may break differently.
      expect(exactHits / (n * K)).toBeGreaterThanOrEqual(0.995);
      expect(int8Hits / (n * K)).toBeGreaterThanOrEqual(0.99);
    });
  });
});
