import type { KernelRunner } from '../../kernels/src/index.js';
import { emit, round } from './measure.js';

/** Pool round trip of a no-op kernel: sequential (latency) and 200 in flight (amortised). */
export async function benchRoundTrip(runner: KernelRunner, runs: number): Promise<number> {
  const task = { kernel: 'noop' as const, args: [] };
  for (let i = 0; i < 200; i++) await runner.runTask(task, 'pool');
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await runner.runTask(task, 'pool');
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const sequentialUs = times[Math.floor(times.length / 2)]! * 1000;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: 200 }, () => runner.runTask(task, 'pool')));
  const amortisedUs = ((performance.now() - t0) * 1000) / 200;
  emit({ bench: 'pool-round-trip', runs, sequentialUs: round(sequentialUs, 1), amortisedUs: round(amortisedUs, 1) });
  return sequentialUs;
}
