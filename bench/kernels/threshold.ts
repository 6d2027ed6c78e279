import type { KernelRunner } from '../../kernels/src/index.js';
import { prng, uniformVectors } from './data.js';
import { emit, measure, round } from './measure.js';

/**
 * Finds the inline/pool threshold: f32 dot scans (384 dims) of growing size, inline and pooled.
 * The threshold is the smallest size whose pooled latency is within 10% of inline (or better).
 */
export async function benchThreshold(runner: KernelRunner, rowCounts: number[], minMs: number): Promise<number | null> {
  const dims = 384;
  const rand = prng(384);
  const max = Math.max(...rowCounts);
  const block = runner.loadVectors(uniformVectors(rand, max, dims), { dims });
  const query = uniformVectors(rand, 1, dims);
  let threshold: number | null = null;
  try {
    for (const rows of rowCounts) {
      // The first `rows` rows of the block: the same regions with a smaller count.
      const view = { ...block, count: rows };
      // Sub-millisecond calls on a shared VM are noisy: take the median of many runs.
      const timing = { minMs, minRuns: 30 };
      const inlineMs = await measure(() => runner.vectorSearch({ block: view, vector: query, metric: 'dot', k: 10, mode: 'inline' }), timing);
      const poolMs = await measure(() => runner.vectorSearch({ block: view, vector: query, metric: 'dot', k: 10, mode: 'pool' }), timing);
      const bytes = rows * dims * 4;
      const ratio = poolMs / inlineMs;
      emit({ bench: 'threshold', rows, dims, bytes, inlineMs: round(inlineMs, 3), poolMs: round(poolMs, 3), poolOverInline: round(ratio, 2) });
      if (threshold === null && ratio <= 1.1) threshold = bytes;
    }
  } finally {
    runner.release(block);
  }
  return threshold;
}
