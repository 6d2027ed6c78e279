// Int8 vs f32 scan, interleaved: `npm run build && node dist/bench/kernels/int8-ratio.js [rounds]`.
// On a shared machine one long timing of each is skewed by whatever else runs at that moment; this
// alternates single f32 and int8 scans (order alternating too), so both see the same load, takes
// each one's median per round of 21 pairs, and reports the median of the per-round ratios. 100k x 384, dot, inline, as the headline row of
// `npm run bench:kernels`.
import { cpus, loadavg } from 'node:os';
import { createKernelRunner } from '../../kernels/src/index.js';
import { checkClose } from './check.js';
import { prng, uniformVectors } from './data.js';
import { emit, round } from './measure.js';

const N = 100_000;
const DIMS = 384;
const K = 10;
const rounds = Number(process.argv[2] ?? 9);
const PAIRS = 21;

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

emit({ bench: 'environment', node: process.version, cpus: cpus().length, cpu: cpus()[0]?.model, loadavg: loadavg().map((x) => round(x)) });
const runner = createKernelRunner({ threads: 1, initialMemoryMb: 64, maximumMemoryMb: 1024 });
try {
  const rand = prng(N + DIMS);
  const block = runner.loadVectors(uniformVectors(rand, N, DIMS), { dims: DIMS, quantize: true });
  const query = uniformVectors(rand, 1, DIMS);
  const f32 = () => runner.vectorSearch({ block, vector: query, metric: 'dot', k: K, mode: 'inline' });
  const int8 = () => runner.vectorSearch({ block, vector: query, metric: 'dot', k: K, quantized: true, mode: 'inline' });
  checkClose('int8 vs f32', await int8(), await f32(), 0.7);
  const ratios: number[] = [];
  for (let i = 0; i < 3; i++) await Promise.all([f32(), int8()]); // warm-up: JIT tiers, page faults
  for (let r = 0; r < rounds; r++) {
    const f32Times: number[] = [];
    const int8Times: number[] = [];
    for (let i = 0; i < PAIRS; i++) {
      const first = i % 2 === 0 ? f32 : int8;
      const second = first === f32 ? int8 : f32;
      const t0 = performance.now();
      await first();
      const t1 = performance.now();
      await second();
      const t2 = performance.now();
      (first === f32 ? f32Times : int8Times).push(t1 - t0);
      (first === f32 ? int8Times : f32Times).push(t2 - t1);
    }
    const f32Ms = median(f32Times);
    const int8Ms = median(int8Times);
    ratios.push(f32Ms / int8Ms);
    emit({ bench: 'int8-ratio-round', round: r, f32Ms: round(f32Ms, 3), int8Ms: round(int8Ms, 3), int8VsF32: round(f32Ms / int8Ms) });
  }
  emit({ summary: { n: N, dims: DIMS, rounds, int8VsF32Median: round(median(ratios)), min: round(Math.min(...ratios)), max: round(Math.max(...ratios)) } });
  runner.release(block);
} finally {
  await runner.close();
}
