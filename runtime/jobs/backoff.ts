import type { BackoffOptions } from './job-types.js';

/**
 * The wait before attempt `attempt + 1` after attempt `attempt` failed. Exponential backoff gets a
 * ±20% jitter so jobs that failed together (an upstream outage) do not all retry in the same instant.
 */
export function retryDelayMs(attempt: number, options: BackoffOptions = {}, random: () => number = Math.random): number {
  const base = options.delayMs ?? 1000;
  const max = options.maxDelayMs ?? 300_000;
  if (options.type === 'fixed') return Math.min(base, max);
  const exponential = Math.min(base * 2 ** Math.max(0, attempt - 1), max);
  return Math.round(exponential * (0.8 + 0.4 * random()));
}
