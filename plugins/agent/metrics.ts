import type { PluginContext } from 'tessera-runtime/plugin';
import type { Circuits } from './circuits.js';
import type { DeadLetters } from './dead-letters.js';

export interface GatewayMetrics {
  calls: { inc(labels: { tier: string; outcome: string; cache: string }): void };
  attempts: { inc(labels: { outcome: string }): void };
  tokens: { inc(labels: { direction: string }, value: number): void };
  cost: { inc(value: number): void };
  saved: { inc(labels: { kind: string }, value: number): void };
  cache: { inc(labels: { result: string }): void };
  latency: { observe(labels: { tier: string }, seconds: number): void };
}

/**
 * The agent's metrics in the application registry (served on `/metrics/prometheus` and every
 * listener's `/metrics`): LLM calls, attempts, tokens, cost, cache results, circuits by state and
 * the dead-letter queue's size. Job states are the runtime's `tessera_jobs_*` series.
 */
export function agentMetrics(ctx: PluginContext<any>, d: { circuits: Circuits; deadLetters: DeadLetters }): GatewayMetrics {
  ctx.metrics.gauge({
    name: 'agent_circuits',
    help: 'Circuit breakers by state.',
    labelNames: ['state'],
    collect() {
      for (const [state, n] of Object.entries(d.circuits.counts())) this.set({ state }, n);
    },
  });
  ctx.metrics.gauge({
    name: 'agent_dlq_records',
    help: 'Records in the dead-letter queue.',
    collect() {
      this.set(d.deadLetters.count());
    },
  });
  return {
    calls: ctx.metrics.counter({
      name: 'agent_llm_calls_total',
      help: 'Gateway calls by tier, outcome and cache result.',
      labelNames: ['tier', 'outcome', 'cache'],
    }),
    attempts: ctx.metrics.counter({ name: 'agent_llm_attempts_total', help: 'Provider attempts by outcome.', labelNames: ['outcome'] }),
    tokens: ctx.metrics.counter({ name: 'agent_llm_tokens_total', help: 'Tokens billed by the provider, by direction.', labelNames: ['direction'] }),
    cost: ctx.metrics.counter({ name: 'agent_llm_cost_usd_total', help: 'Cost of provider calls in USD, from the catalogue prices.' }),
    saved: ctx.metrics.counter({ name: 'agent_cache_saved_total', help: 'What cache hits saved: tokens and USD.', labelNames: ['kind'] }),
    cache: ctx.metrics.counter({
      name: 'agent_cache_lookups_total',
      help: 'Semantic cache lookups by result (exact, semantic, miss).',
      labelNames: ['result'],
    }),
    latency: ctx.metrics.histogram({
      name: 'agent_llm_call_duration_seconds',
      help: 'Gateway call latency by tier.',
      labelNames: ['tier'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    }),
  };
}
