import { CircuitBreaker, type BreakerSettings, type CircuitView, type TransitionListener } from './circuit-breaker.js';

export type CircuitKind = 'model' | 'provider' | 'sync';

/**
 * Every tenant's circuits, created on first use: one per model (`model:<id>`), one per vendor
 * (`provider:<vendor>`) and one per sync endpoint (`sync:<origin>`). Circuits are live state, kept
 * in memory: a restart closes them all.
 */
export class Circuits {
  private readonly byKey = new Map<string, CircuitBreaker>();

  constructor(
    private readonly settings: BreakerSettings,
    private readonly onTransition: (tenant: string, circuit: CircuitView, from: string) => void,
  ) {}

  get(tenant: string, kind: CircuitKind, target: string): CircuitBreaker {
    const name = `${kind}:${target}`;
    const key = `${tenant}\u0000${name}`;
    let breaker = this.byKey.get(key);
    if (!breaker) {
      const listener: TransitionListener = (view, from) => this.onTransition(tenant, view, from);
      breaker = new CircuitBreaker(name, kind, this.settings, listener);
      this.byKey.set(key, breaker);
    }
    return breaker;
  }

  list(tenant: string): CircuitView[] {
    const out: CircuitView[] = [];
    for (const [key, breaker] of this.byKey) if (key.startsWith(`${tenant}\u0000`)) out.push(breaker.view());
    return out.sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Counts by state over every tenant, for the metrics. */
  counts(): Record<string, number> {
    const counts: Record<string, number> = { closed: 0, open: 0, half_open: 0 };
    for (const breaker of this.byKey.values()) counts[breaker.current] = (counts[breaker.current] ?? 0) + 1;
    return counts;
  }
}
