// Kernel benchmarks: `npm run bench:kernels` (full, ~10 min) or `npm run bench:kernels -- --quick`
// (under a minute). Prints one JSON line per measurement and ends with the summary line
// {"summary": {...}} that the targets in bench/README.md are read from.
import { cpus } from 'node:os';
import { createKernelRunner } from '../../kernels/src/index.js';
import { benchBm25 } from './bm25.js';
import { emit, round } from './measure.js';
import { benchRoundTrip } from './round-trip.js';
import { benchRrf } from './rrf.js';
import { benchThreshold } from './threshold.js';
import { benchVectors, type VectorBenchResult } from './vector-scans.js';

const quick = process.argv.includes('--quick');
const minMs = quick ? 150 : 500;

/**
 * The grid: 10k, 100k and 1M rows at 128, 384 and 768 dims. 1M x 768 is 3.07 GB of f32 plus
 * 0.77 GB of int8 codes, which still fits the 4 GiB a wasm32 memory can address.
 */
const grid: Array<[number, number]> = quick
  ? [[100_000, 384]]
  : [
      [10_000, 128],
      [10_000, 384],
      [10_000, 768],
      [100_000, 128],
      [100_000, 384],
      [100_000, 768],
      [1_000_000, 128],
      [1_000_000, 384],
      [1_000_000, 768],
    ];

emit({ bench: 'environment', node: process.version, cpus: cpus().length, cpu: cpus()[0]?.model, quick });
const runner = createKernelRunner({ threads: 2, initialMemoryMb: 64, maximumMemoryMb: 4096 });
try {
  let headline: VectorBenchResult | null = null;
  for (const [n, dims] of grid) {
    const metrics = n === 100_000 && dims === 384 ? (['dot', 'cosine', 'euclidean'] as const) : (['dot'] as const);
    const result = await benchVectors(runner, n, dims, { reference: true, metrics: [...metrics], minMs });
    if (n === 100_000 && dims === 384) headline = result;
  }
  let bm25VsReference = 0;
  for (const docs of quick ? [100_000] : [10_000, 100_000, 1_000_000]) {
    const ratio = await benchBm25(runner, docs, minMs);
    if (docs === 100_000) bm25VsReference = ratio;
  }
  const rrfVsReference = await benchRrf(runner, minMs);
  const poolRoundTripUs = await benchRoundTrip(runner, quick ? 1000 : 5000);
  const thresholdRows = quick ? [2_000, 8_000, 32_000] : [500, 1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 128_000];
  const thresholdBytes = await benchThreshold(runner, thresholdRows, minMs);
  emit({ bench: 'inline-threshold', bytes: thresholdBytes, rule: 'smallest f32 scan with pooled latency <= 1.1 x inline' });
  emit({
    summary: {
      f32VsReference: round(headline!.f32VsReference ?? 0, 1),
      f32PctOfBandwidth: round(headline!.f32PctOfBandwidth, 1),
      int8VsF32: round(headline!.int8VsF32, 2),
      bm25VsReference: round(bm25VsReference, 1),
      rrfVsReference: round(rrfVsReference, 1),
      poolRoundTripUs: round(poolRoundTripUs, 1),
    },
  });
} finally {
  await runner.close();
}
