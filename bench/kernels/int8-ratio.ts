// Int8 vs f32 scan, interleaved: `npm run build && node dist/bench/kernels/int8-ratio.js [rounds]`.
// On a shared machine one long timing of each is skewed by whatever else runs at that moment; this
// alternates single f32 and int8 searches (which one goes first alternates too), so both see the
// same load. Per round of 21 pairs it takes each side's median and its minimum (the least-disturbed
// run); the summary is the median over rounds of both ratios. Two sizes: 100k x 384, the headline
// row of `npm run bench:kernels` (int8 streams its 40 MB of codes from memory), and 10k x 384,
// whose codes stay in cache, so the int8 time there is the inner loop's compute alone.
import { cpus, loadavg } from 'node:os';
import { createKernelRunner, type KernelRunner } from '../../kernels/src/index.js';
import { checkClose } from './check.js';
import { prng, uniformVectors } from './data.js';
import { emit, round } from './measure.js';

const DIMS = 384;
const K = 10;
const PAIRS = 21;
const rounds = Number(process.argv[2] ?? 9);

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function ratios(runner: KernelRunner, n: number): Promise<Record<string, number>> {
  const rand = prng(n + DIMS);
  const block = runner.loadVectors(uniformVectors(rand, n, DIMS), { dims: DIMS, quantize: true });
  const query = uniformVectors(rand, 1, DIMS);
  const f32 = () => runner.vectorSearch({ block, vector: query, metric: 'dot', k: K, mode: 'inline' });
  const int8 = () => runner.vectorSearch({ block, vector: query, metric: 'dot', k: K, quantized: true, mode: 'inline' });
  try {
    checkClose(`int8 vs f32 ${n}x${DIMS}`, await int8(), await f32(), 0.7);
    for (let i = 0; i < 5; i++) await Promise.all([f32(), int8()]); // warm-up: JIT tiers, page faults
    const byMedian: number[] = [];
    const byMin: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const times = { f32: [] as number[], int8: [] as number[] };
      for (let i = 0; i < PAIRS; i++) {
        for (const side of i % 2 === 0 ? (['f32', 'int8'] as const) : (['int8', 'f32'] as const)) {
          const t0 = performance.now();
          await (side === 'f32' ? f32() : int8());
          times[side].push(performance.now() - t0);
        }
      }
      byMedian.push(median(times.f32) / median(times.int8));
      byMin.push(Math.min(...times.f32) / Math.min(...times.int8));
      emit({
        bench: 'int8-ratio-round',
        n,
        dims: DIMS,
        round: r,
        f32MedianMs: round(median(times.f32), 3),
        int8MedianMs: round(median(times.int8), 3),
        f32MinMs: round(Math.min(...times.f32), 3),
        int8MinMs: round(Math.min(...times.int8), 3),
      });
    }
    return { n, dims: DIMS, rounds, int8VsF32ByMedian: round(median(byMedian)), int8VsF32ByMin: round(median(byMin)) };
  } finally {
    runner.release(block);
  }
}

emit({ bench: 'environment', node: process.version, cpus: cpus().length, cpu: cpus()[0]?.model, loadavg: loadavg().map((x) => round(x)) });
const runner = createKernelRunner({ threads: 0, initialMemoryMb: 64, maximumMemoryMb: 1024 });
try {
  const streamed = await ratios(runner, 100_000);
  const cached = await ratios(runner, 10_000);
  emit({ summary: { streamed, cached, loadavgAfter: loadavg().map((x) => round(x)) } });
} finally {
  await runner.close();
}
