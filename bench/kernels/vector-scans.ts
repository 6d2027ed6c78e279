import { reference, type KernelRunner, type Metric } from '../../kernels/src/index.js';
import { checkClose } from './check.js';
import { prng, uniformVectors } from './data.js';
import { emit, measure, round } from './measure.js';
import { plainJsDotTopK } from './plain-js-scan.js';

export interface VectorBenchResult {
  n: number;
  dims: number;
  bandwidthGBps: number;
  f32InlineMs: number;
  f32PoolMs: number;
  f32GBps: number;
  f32PctOfBandwidth: number;
  int8Ms: number;
  int8VsF32: number;
  referenceMs: number | null;
  f32VsReference: number | null;
}

const K = 10;

/**
 * Bandwidth baseline, f32 scans (inline, pooled, JS reference) and int8 scans over n x dims.
 * Every kernel answer is checked against the reference before anything is timed.
 */
export async function benchVectors(
  runner: KernelRunner,
  n: number,
  dims: number,
  options: { reference: boolean; metrics: Metric[]; minMs: number },
): Promise<VectorBenchResult> {
  const rand = prng(n + dims);
  const data = uniformVectors(rand, n, dims);
  const block = runner.loadVectors(data, { dims, quantize: true });
  const query = uniformVectors(rand, 1, dims);
  const bytes = n * dims * 4;
  const timing = { minMs: options.minMs, minRuns: 3 };
  try {
    // Check first: the reference also supplies the JS timing (one run; it takes seconds at 1M).
    let referenceMs: number | null = null;
    for (const metric of options.metrics) {
      const kernel = await runner.vectorSearch({ block, vector: query, metric, k: K, mode: 'inline' });
      const pooled = await runner.vectorSearch({ block, vector: query, metric, k: K, mode: 'pool' });
      checkClose(`f32 pool ${metric}`, pooled, kernel, 1);
      const int8 = await runner.vectorSearch({ block, vector: query, metric, k: K, quantized: true, mode: 'inline' });
      if (options.reference) {
        const t0 = performance.now();
        const expected = reference.vectorSearch({ vectors: data, dims, query, metric, k: K });
        if (metric === 'dot') referenceMs = performance.now() - t0;
        checkClose(`f32 ${metric} ${n}x${dims}`, kernel, expected);
        // Int8 with rescoring is approximate by design: compare its exact scores, allow recall < 1.
        checkClose(`int8 ${metric} ${n}x${dims}`, int8, expected, 0.7);
      }
    }
    const plainJs = plainJsDotTopK(data, dims, query, K);
    checkClose(`plain JS ${n}x${dims}`, plainJs, await runner.vectorSearch({ block, vector: query, metric: 'dot', k: K }));
    const plainJsMs = await measure(() => plainJsDotTopK(data, dims, query, K), { minMs: options.minMs, minRuns: 3 });

    const streamMs = await measure(() => runner.runTask({ kernel: 'streamRead', args: [block.vectors.offset, bytes] }), timing);
    const bandwidthGBps = bytes / streamMs / 1e6;
    emit({ bench: 'bandwidth', n, dims, bytes, ms: round(streamMs, 3), GBps: round(bandwidthGBps) });

    let result: VectorBenchResult | null = null;
    for (const metric of options.metrics) {
      const inlineMs = await measure(() => runner.vectorSearch({ block, vector: query, metric, k: K, mode: 'inline' }), timing);
      const poolMs = await measure(() => runner.vectorSearch({ block, vector: query, metric, k: K, mode: 'pool' }), timing);
      const int8Ms = await measure(() => runner.vectorSearch({ block, vector: query, metric, k: K, quantized: true, mode: 'inline' }), timing);
      const gbps = bytes / inlineMs / 1e6;
      const pct = (100 * gbps) / bandwidthGBps;
      const vsRef = metric === 'dot' && referenceMs !== null ? referenceMs / inlineMs : null;
      emit({
        bench: 'f32-scan',
        n,
        dims,
        metric,
        inlineMs: round(inlineMs, 3),
        poolMs: round(poolMs, 3),
        GBps: round(gbps),
        poolGBps: round(bytes / poolMs / 1e6),
        pctOfBandwidth: round(pct, 1),
        ...(vsRef !== null ? { referenceMs: round(referenceMs!, 1), vsReference: round(vsRef, 1) } : {}),
        ...(metric === 'dot' ? { plainJsMs: round(plainJsMs, 2), vsPlainJs: round(plainJsMs / inlineMs, 1) } : {}),
      });
      emit({
        bench: 'int8-scan',
        n,
        dims,
        metric,
        ms: round(int8Ms, 3),
        vectorsPerSec: Math.round(n / (int8Ms / 1000)),
        vsF32: round(inlineMs / int8Ms),
      });
      if (metric === 'dot') {
        result = {
          n,
          dims,
          bandwidthGBps,
          f32InlineMs: inlineMs,
          f32PoolMs: poolMs,
          f32GBps: gbps,
          f32PctOfBandwidth: pct,
          int8Ms,
          int8VsF32: inlineMs / int8Ms,
          referenceMs,
          f32VsReference: vsRef,
        };
      }
    }
    return result!;
  } finally {
    runner.release(block);
  }
}
