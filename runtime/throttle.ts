import { TesseraError } from './errors.js';
import type { ThrottleTier, ThrottleTierConfig } from './manifest-schema.js';

export const throttleTiers: readonly ThrottleTier[] = ['light', 'standard', 'heavy'];

export class ThrottledError extends TesseraError {
  constructor(tier: ThrottleTier, retryAfterSeconds: number, waitedMs?: number) {
    const why = waitedMs === undefined ? `Too many concurrent "${tier}" requests` : `No "${tier}" slot came free within ${waitedMs} ms`;
    super('throttled', 429, `${why}; retry after ${retryAfterSeconds}s.`, {
      details: waitedMs === undefined ? { tier } : { tier, waitedMs },
      headers: { 'retry-after': String(retryAfterSeconds) },
    });
    this.name = 'ThrottledError';
  }
}

/**
 * What a queued request's client looks like to the queue: an AbortSignal, or a cheaper stand-in
 * with the same members (the listener reads a Node response's 'close' instead of making a signal).
 */
export interface ClientSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

interface Waiter {
  grant: () => void;
}

interface TierState {
  config: ThrottleTierConfig;
  active: number;
  waiting: Waiter[];
}

/** The longest a request waits in a tier's queue before it is refused with 429 (ms). */
export const defaultMaxQueueWaitMs = 10_000;

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

  /** Take a free slot if there is one (no queue, no promise): the common case. */
  tryAcquire(tier: ThrottleTier): boolean {
    const state = this.tiers[tier];
    if (state.active < state.config.concurrency) {
      state.active++;
      return true;
    }
    return false;
  }

  /**
   * Take a slot: synchronously when one is free (the common case, returns nothing), else after
   * queueing. The promise resolves `true` with the slot held, or `false` without one when `signal`
   * aborted while waiting (the client went away); it rejects with 429 after the tier's `maxWaitMs`.
   */
  acquire(tier: ThrottleTier, signal?: ClientSignal): void | Promise<boolean> {
    const state = this.tiers[tier];
    if (state.active < state.config.concurrency) {
      state.active++;
      return;
    }
    if (signal?.aborted) return Promise.resolve(false);
    if (state.waiting.length >= state.config.queue) {
      throw new ThrottledError(tier, this.retryAfterSeconds);
    }
    const maxWait = state.config.maxWaitMs ?? defaultMaxQueueWaitMs;
    // The slot is handed over by release(), so `active` already counts this request when it wakes.
    return new Promise<boolean>((resolve, reject) => {
      const leave = (): boolean => {
        const at = state.waiting.indexOf(waiter);
        if (at !== -1) state.waiting.splice(at, 1);
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        return at !== -1;
      };
      const onAbort = (): void => {
        if (leave()) resolve(false);
      };
      const waiter: Waiter = {
        grant: () => {
          leave();
          // Woken from a macrotask, never straight from the releasing request's continuation:
          // otherwise a queue of CPU-bound requests runs back to back in one turn of the event
          // loop, and no socket is read in between (no /health, no client-gone notice, no 429).
          setImmediate(resolve, true);
        },
      };
      const timer = setTimeout(() => {
        if (leave()) reject(new ThrottledError(tier, this.retryAfterSeconds, maxWait));
      }, maxWait);
      timer.unref?.();
      signal?.addEventListener('abort', onAbort, { once: true });
      state.waiting.push(waiter);
    });
  }

  release(tier: ThrottleTier): void {
    const state = this.tiers[tier];
    const next = state.waiting[0];
    if (next) next.grant();
    else state.active--;
  }

  stats(tier: ThrottleTier): { active: number; queued: number; concurrency: number; queue: number } {
    const state = this.tiers[tier];
    return { active: state.active, queued: state.waiting.length, ...state.config };
  }
}
