import { tooManyAuthFailures } from './errors.js';
import type { BruteForceOptions } from './options.js';

interface AddressState {
  /** Times of recent failures, oldest first, within the window. */
  failures: number[];
  blockedUntil: number;
}

/**
 * Throttles key guessing per client address (the socket's peer, never a forwarded header, which a
 * client could forge). `maxFailures` failed attempts within `windowSeconds` block the address for
 * `blockSeconds`: while blocked, every key from it is refused with 429, valid ones too, so a guesser
 * learns nothing during the block. A success does not clear the count, so one valid key cannot
 * launder a guessing run. State is per process and in memory: a restart forgets it.
 */
export class BruteForceGuard {
  private readonly options: BruteForceOptions;
  private readonly now: () => number;
  private readonly addresses = new Map<string, AddressState>();

  constructor(options: BruteForceOptions, now: () => number = Date.now) {
    this.options = options;
    this.now = now;
  }

  /** Throws 429 `too_many_auth_failures` with Retry-After while `address` is blocked. */
  check(address: string): void {
    const state = this.addresses.get(address);
    if (!state || state.blockedUntil === 0) return;
    const remaining = state.blockedUntil - this.now();
    if (remaining > 0) throw tooManyAuthFailures(Math.max(1, Math.ceil(remaining / 1000)));
    this.addresses.delete(address);
  }

  /** Counts a failed attempt; returns the block's length in seconds when this failure starts one, else 0. */
  fail(address: string): number {
    const now = this.now();
    const state = this.addresses.get(address) ?? { failures: [], blockedUntil: 0 };
    // Re-inserting keeps the map in least-recently-failed order for eviction.
    this.addresses.delete(address);
    const windowStart = now - this.options.windowSeconds * 1000;
    state.failures = state.failures.filter((t) => t > windowStart);
    state.failures.push(now);
    let blocked = 0;
    if (state.failures.length >= this.options.maxFailures) {
      state.failures = [];
      state.blockedUntil = now + this.options.blockSeconds * 1000;
      blocked = this.options.blockSeconds;
    }
    this.addresses.set(address, state);
    while (this.addresses.size > this.options.maxTrackedAddresses) {
      this.addresses.delete(this.addresses.keys().next().value!);
    }
    return blocked;
  }

  /** Addresses currently tracked (for tests and the gauge). */
  get size(): number {
    return this.addresses.size;
  }
}
