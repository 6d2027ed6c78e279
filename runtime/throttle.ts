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

/** A queued request: plain fields, no closures but the promise's own and the client's listener. */
class Waiter {
  readonly enqueuedAt: number;
  readonly resolve: (granted: boolean) => void;
  readonly reject: (err: unknown) => void;
  readonly signal: ClientSignal | undefined;
  onAbort: (() => void) | undefined = undefined;

  constructor(enqueuedAt: number, resolve: (granted: boolean) => void, reject: (err: unknown) => void, signal: ClientSignal | undefined) {
    this.enqueuedAt = enqueuedAt;
    this.resolve = resolve;
    this.reject = reject;
    this.signal = signal;
  }
}

interface TierState {
  tier: ThrottleTier;
  config: ThrottleTierConfig;
  active: number;
  waiting: Waiter[];
  /** One timer per tier, armed for the oldest waiter's deadline (the queue is FIFO, so it is the first to expire). */
  timer: NodeJS.Timeout | undefined;
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
      light: { tier: 'light', config: config.light, active: 0, waiting: [], timer: undefined },
      standard: { tier: 'standard', config: config.standard, active: 0, waiting: [], timer: undefined },
      heavy: { tier: 'heavy', config: config.heavy, active: 0, waiting: [], timer: undefined },
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
    // The slot is handed over by release(), so `active` already counts this request when it wakes.
    return new Promise<boolean>((resolve, reject) => {
      const waiter = new Waiter(performance.now(), resolve, reject, signal);
      if (signal) {
        waiter.onAbort = (): void => {
          if (this.leave(state, waiter)) resolve(false);
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      state.waiting.push(waiter);
      if (state.timer === undefined) this.arm(state, maxWaitOf(state));
    });
  }

  release(tier: ThrottleTier): void {
    const state = this.tiers[tier];
    const next = state.waiting.shift();
    if (next) {
      if (next.onAbort) next.signal!.removeEventListener('abort', next.onAbort);
      // Woken from a macrotask, never straight from the releasing request's continuation:
      // otherwise a queue of CPU-bound requests runs back to back in one turn of the event
      // loop, and no socket is read in between (no /health, no client-gone notice, no 429).
      setImmediate(next.resolve, true);
    } else state.active--;
  }

  /** Take `waiter` out of the queue; false if it had already left it (granted or expired). */
  private leave(state: TierState, waiter: Waiter): boolean {
    const at = state.waiting.indexOf(waiter);
    if (at === -1) return false;
    state.waiting.splice(at, 1);
    if (waiter.onAbort) waiter.signal!.removeEventListener('abort', waiter.onAbort);
    return true;
  }

  /** Refuse (429) the waiters whose time is up, oldest first, and re-arm for the next one. */
  private expire(state: TierState): void {
    state.timer = undefined;
    const maxWait = maxWaitOf(state);
    const now = performance.now();
    let head = state.waiting[0];
    while (head && now - head.enqueuedAt >= maxWait) {
      state.waiting.shift();
      if (head.onAbort) head.signal!.removeEventListener('abort', head.onAbort);
      head.reject(new ThrottledError(state.tier, this.retryAfterSeconds, maxWait));
      head = state.waiting[0];
    }
    if (head) this.arm(state, head.enqueuedAt + maxWait - now);
  }

  private arm(state: TierState, delayMs: number): void {
    state.timer = setTimeout(() => this.expire(state), Math.max(1, Math.ceil(delayMs)));
    state.timer.unref?.();
  }

  stats(tier: ThrottleTier): { active: number; queued: number; concurrency: number; queue: number } {
    const state = this.tiers[tier];
    return { active: state.active, queued: state.waiting.length, ...state.config };
  }
}

function maxWaitOf(state: TierState): number {
  return state.config.maxWaitMs ?? defaultMaxQueueWaitMs;
}
