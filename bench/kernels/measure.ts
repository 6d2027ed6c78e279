/** Median wall time of `fn` in ms: at least `minRuns` runs and at least `minMs` of total time. */
export async function measure(fn: () => unknown, options: { minRuns?: number; minMs?: number; maxRuns?: number } = {}): Promise<number> {
  const minRuns = options.minRuns ?? 5;
  const minMs = options.minMs ?? 300;
  const maxRuns = options.maxRuns ?? 10_000;
  await fn(); // warm-up: JIT tiers, first-touch page faults, pool workers
  const times: number[] = [];
  const started = performance.now();
  while (times.length < maxRuns && (times.length < minRuns || performance.now() - started < minMs)) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

export const round = (x: number, digits = 2): number => Number(x.toFixed(digits));

/** One JSON line per measurement: the bench's whole output is machine-readable. */
export function emit(record: Record<string, unknown>): void {
  console.log(JSON.stringify(record));
}
