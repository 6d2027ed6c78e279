import { TesseraError } from './errors.js';
import type { ThrottleTier, ThrottleTierConfig } from './manifest-schema.js';

export const throttleTiers: readonly ThrottleTier[] = ['light', 'standard', 'heavy'];

export class ThrottledError extends TesseraError {
  constructor(tier: ThrottleTier, retryAfterSeconds: number) {
    super('throttled', 429, `Too many concurrent "${tier}" requests; retry after ${retryAfterSeconds}s.`, {
      details: { tier },
      headers: { 'retry-after': String(retryAfterSeconds) },
    });
    this.name = 'ThrottledError';
  }
}

interface TierState {
  config: ThrottleTierConfig;
  active: number;
  waiting: Array<() => void>;
}

/**
 * Three concurrency tiers, each a semaphore with a bounded FIFO queue. A request that finds both
 * the slots and the queue full is refused at once (429), so overload never turns into a hang.
 */
export class Throttle {
  private readonly tiers: Record<ThrottleTier, TierState>;
  private readonly retryAfterSeconds: number;

  constructor(config: Record<ThrottleTier, ThrottleTierConfig>, retryAfterSeconds = 1) {
    this.retryAfterSeconds = retryAfterSeconds;
    this.tiers = {
      light: { config: config.light, active: 0, waiting: [] },
      standard: { config: config.standard, active: 0, waiting: [] },
      heavy: { config: config.heavy, active: 0, waiting: [] },
    };
  }

  /** Take a slot: synchronously when one is free (the common case), else after queueing. */
  acquire(tier: ThrottleTier): void | Promise<void> {
    const state = this.tiers[tier];
    if (state.active < state.config.concurrency) {
      state.active++;
      return;
    }
    if (state.waiting.length >= state.config.queue) {
      throw new ThrottledError(tier, this.retryAfterSeconds);
    }
    // The slot is handed over by release(), so `active` already counts this request when it wakes.
    return new Promise<void>((resolve) => state.waiting.push(resolve));
  }

  release(tier: ThrottleTier): void {
    const state = this.tiers[tier];
    const next = state.waiting.shift();
    if (next) next();
    else state.active--;
  }

  stats(tier: ThrottleTier): { active: number; queued: number; concurrency: number; queue: number } {
    const state = this.tiers[tier];
    return { active: state.active, queued: state.waiting.length, ...state.config };
  }
}
