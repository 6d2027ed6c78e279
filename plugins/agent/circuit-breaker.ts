export type CircuitState = 'closed' | 'open' | 'half_open';

export interface BreakerSettings {
  consecutiveFailures: number;
  errorRate: number;
  windowMs: number;
  minCalls: number;
  cooldownMs: number;
}

export interface CircuitView {
  name: string;
  kind: string;
  state: CircuitState;
  consecutiveFailures: number;
  /** Calls in the rate window, and how many of them failed. */
  window: { calls: number; failures: number; errorRate: number };
  totals: { successes: number; failures: number; rejected: number };
  lastError: { message: string; at: string } | null;
  openedAt: string | null;
  nextProbeAt: string | null;
  changedAt: string;
}

export type TransitionListener = (circuit: CircuitView, from: CircuitState) => void;

/**
 * A circuit breaker as a small state machine (closed → open → half_open → closed). It opens after
 * `consecutiveFailures` failures in a row, or when at least `minCalls` calls in the last `windowMs`
 * failed at `errorRate` or more; after `cooldownMs` one probe call is let through (half_open); its
 * success closes the circuit, its failure opens it for another cooldown.
 */
export class CircuitBreaker {
  private state: CircuitState = 'closed';
  private consecutive = 0;
  private recent: Array<{ at: number; ok: boolean }> = [];
  private totals = { successes: 0, failures: 0, rejected: 0 };
  private lastError: { message: string; at: string } | null = null;
  private openedAt: number | null = null;
  private nextProbeAt: number | null = null;
  private probeInFlight = false;
  private changedAt = Date.now();

  constructor(
    readonly name: string,
    readonly kind: string,
    private readonly settings: BreakerSettings,
    private readonly onTransition: TransitionListener = () => {},
    /** Read at each use (not `Date.now` captured once), so whoever sets the process clock sets every circuit's. */
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** Whether a call may go ahead now; a `true` in the open state's cooldown end makes it the probe. */
  tryPass(): boolean {
    const now = this.now();
    if (this.state === 'open' && this.nextProbeAt !== null && now >= this.nextProbeAt) this.move('half_open');
    if (this.state === 'closed') return true;
    if (this.state === 'half_open' && !this.probeInFlight) {
      this.probeInFlight = true;
      return true;
    }
    this.totals.rejected += 1;
    return false;
  }

  /** Whether a call would pass now, without taking the probe slot. */
  available(): boolean {
    if (this.state === 'closed') return true;
    if (this.state === 'half_open') return !this.probeInFlight;
    return this.nextProbeAt !== null && this.now() >= this.nextProbeAt;
  }

  success(): void {
    this.totals.successes += 1;
    this.consecutive = 0;
    this.record(true);
    if (this.state === 'half_open') {
      this.probeInFlight = false;
      this.openedAt = null;
      this.nextProbeAt = null;
      this.move('closed');
    }
  }

  failure(message: string): void {
    const now = this.now();
    this.totals.failures += 1;
    this.consecutive += 1;
    this.lastError = { message, at: new Date(now).toISOString() };
    this.record(false);
    if (this.state === 'half_open') {
      this.probeInFlight = false;
      this.open(now);
      return;
    }
    if (this.state !== 'closed') return;
    const w = this.windowStats(now);
    if (this.consecutive >= this.settings.consecutiveFailures || (w.calls >= this.settings.minCalls && w.errorRate >= this.settings.errorRate)) {
      this.open(now);
    }
  }

  get current(): CircuitState {
    if (this.state === 'open' && this.nextProbeAt !== null && this.now() >= this.nextProbeAt) return 'half_open';
    return this.state;
  }

  view(): CircuitView {
    const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());
    return {
      name: this.name,
      kind: this.kind,
      state: this.current,
      consecutiveFailures: this.consecutive,
      window: this.windowStats(this.now()),
      totals: { ...this.totals },
      lastError: this.lastError,
      openedAt: iso(this.openedAt),
      nextProbeAt: iso(this.nextProbeAt),
      changedAt: new Date(this.changedAt).toISOString(),
    };
  }

  private open(now: number): void {
    this.openedAt = now;
    this.nextProbeAt = now + this.settings.cooldownMs;
    this.move('open');
  }

  private move(to: CircuitState): void {
    if (to === this.state) return;
    const from = this.state;
    this.state = to;
    this.changedAt = this.now();
    this.onTransition(this.view(), from);
  }

  private record(ok: boolean): void {
    const now = this.now();
    this.recent.push({ at: now, ok });
    const cut = now - this.settings.windowMs;
    let drop = 0;
    while (drop < this.recent.length && this.recent[drop]!.at < cut) drop++;
    if (drop > 0 || this.recent.length > 10_000) this.recent = this.recent.slice(Math.max(drop, this.recent.length - 10_000));
  }

  private windowStats(now: number): { calls: number; failures: number; errorRate: number } {
    const cut = now - this.settings.windowMs;
    let calls = 0;
    let failures = 0;
    for (const r of this.recent) {
      if (r.at < cut) continue;
      calls += 1;
      if (!r.ok) failures += 1;
    }
    return { calls, failures, errorRate: calls === 0 ? 0 : failures / calls };
  }
}
