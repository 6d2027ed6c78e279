/** Nearest-rank percentile (p in 0..100) of unsorted samples. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1]!;
}

export const round = (x: number, digits = 3): number => Number(x.toFixed(digits));

/** One JSON line per measurement: the bench's whole output is machine-readable. */
export function emit(record: Record<string, unknown>): void {
  process.stdout.write(JSON.stringify(record) + '\n');
}

export interface LatencyFigures {
  queries: number;
  concurrency: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  maxMs: number;
  qps: number;
  /** Queries that returned at least one id. */
  nonEmpty: number;
}

type Search = (query: string, k: number) => Promise<string[]>;

/**
 * Runs every query once with `concurrency` in flight: that many lanes, each awaiting its search
 * before taking the next query (Promise.all over the lanes). A query's latency runs from its call
 * to the resolution of its promise, so with a synchronous library and 8 lanes it includes the time
 * spent behind the other lanes' work, as it would for a caller.
 */
export async function runQueries(
  search: Search,
  queries: readonly string[],
  k: number,
  concurrency: number,
  onResult?: (index: number, ids: string[]) => void,
): Promise<LatencyFigures> {
  const latencies = new Array<number>(queries.length);
  let next = 0;
  let nonEmpty = 0;
  const lane = async (): Promise<void> => {
    while (next < queries.length) {
      const i = next++;
      const t0 = performance.now();
      const ids = await search(queries[i]!, k);
      latencies[i] = performance.now() - t0;
      if (ids.length > 0) nonEmpty++;
      onResult?.(i, ids);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, lane));
  const wallMs = performance.now() - started;
  return {
    queries: queries.length,
    concurrency,
    p50Ms: round(percentile(latencies, 50)),
    p99Ms: round(percentile(latencies, 99)),
    meanMs: round(latencies.reduce((a, b) => a + b, 0) / latencies.length),
    maxMs: round(Math.max(...latencies)),
    qps: Math.round((queries.length / wallMs) * 1000),
    nonEmpty,
  };
}
