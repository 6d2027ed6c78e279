import { createHash } from 'node:crypto';
import { sortableId, type EventLog } from 'tessera-runtime/plugin';
import { engagementLimits, type Budgets } from './budget.js';
import type { CacheKey, SemanticCacheLike } from './cache-port.js';
import type { Catalog } from './catalog.js';
import type { Circuits } from './circuits.js';
import { errors } from './errors.js';
import { ProviderFailure, type ChatDelta, type ChatRequest, type ChatResult, type LlmProvider, type Usage } from './llm-provider.js';
import type { GatewayMetrics } from './metrics.js';
import { redact } from './redact.js';
import { orderCandidates, resolveRoute } from './router.js';
import type { CatalogModel } from './seed-models.js';
import { maxTier } from './tiers.js';

export interface GatewayDeps {
  catalog: Catalog;
  circuits: Circuits;
  budgets: Budgets;
  cache: SemanticCacheLike;
  events: EventLog;
  metrics: GatewayMetrics;
  provider(tenant: string): LlmProvider;
  secrets(tenant: string): Array<string | undefined>;
  maxEscalation: number;
  callTimeoutMs: number;
  cacheEnabled: boolean;
}

export interface CallInput {
  tenant: string;
  request: ChatRequest;
  cache: boolean;
  signal?: AbortSignal;
}

export interface AttemptRecord {
  model: string;
  tier: number;
  outcome: 'ok' | 'circuit_open' | ProviderFailure['kind'];
  status?: number;
  latencyMs: number;
  error?: string;
}

export interface CallSummary {
  callId: string;
  requestedTier: number;
  tier: number;
  model: string;
  cache: 'exact' | 'semantic' | 'miss' | 'off';
  attempts: AttemptRecord[];
  usage: Usage;
  costUsd: number;
  latencyMs: number;
  budgetCut: { requested: number | null; allowed: number } | null;
}

/** An attempt that produced a stream: the first delta is already read, so the candidate is committed. */
export interface OpenStream {
  model: CatalogModel;
  first: IteratorResult<ChatDelta>;
  rest: AsyncIterator<ChatDelta>;
}

export function costOf(model: Pick<CatalogModel, 'pricing'>, usage: Usage): number {
  return (usage.prompt_tokens * model.pricing.promptPer1M + usage.completion_tokens * model.pricing.completionPer1M) / 1e6;
}

/** The cache key of a request in a tier (see docs/agent-api.md, "Semantic cache"). */
export function cacheKeyOf(tier: number, request: ChatRequest): CacheKey {
  const params = JSON.stringify([
    request.temperature ?? null,
    request.top_p ?? null,
    request.max_tokens ?? null,
    request.stop ?? null,
    request.tools ?? null,
    request.tool_choice ?? null,
    request.response_format ?? null,
  ]);
  const paramsKey = createHash('sha256').update(params).digest('hex').slice(0, 32);
  const prompt = request.messages
    .map((m) => `${m.role}: ${typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? m.tool_calls ?? '')}`)
    .join('\n')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
  const exactKey = createHash('sha256').update(`${tier}\u0000${paramsKey}\u0000${prompt}`).digest('hex');
  return { tier, paramsKey, prompt, exactKey };
}

/**
 * The LLM gateway: one call names a tier (or a task class, or a model), the token budget is
 * applied, the semantic cache answers if it can, else the router tries the tier's candidates in
 * order, rotating on retryable failures and escalating a tier up when a tier is exhausted. Every
 * attempt, budget cut, cache result and call is an event in the tenant's telemetry.
 */
export class Gateway {
  constructor(private readonly d: GatewayDeps) {}

  /** Budget, route and cache key of a call, and the budget-cut event when the request asked for more. */
  async prepare(input: CallInput): Promise<{
    callId: string;
    request: ChatRequest;
    route: ReturnType<typeof resolveRoute>;
    key: CacheKey;
    budgetCut: CallSummary['budgetCut'];
    started: number;
  }> {
    const started = performance.now();
    const callId = sortableId('call_');
    const route = resolveRoute(this.d.catalog, input.tenant, input.request.model);
    const budget = this.d.budgets.get(input.tenant);
    const asked = input.request.max_tokens;
    const allowed = Math.min(asked ?? budget.maxOutputTokens, budget.maxOutputTokens);
    const request = { ...input.request, max_tokens: allowed };
    let budgetCut: CallSummary['budgetCut'] = null;
    if (asked !== undefined && asked > budget.maxOutputTokens) {
      budgetCut = { requested: asked, allowed };
      await this.d.events.append(
        'budget.cut',
        { callId, requested: asked, allowed, engagementMode: budget.engagementMode },
        { tenant: input.tenant, subject: callId },
      );
    }
    return { callId, request, route, key: cacheKeyOf(route.tier, request), budgetCut, started };
  }

  async lookup(tenant: string, key: CacheKey, use: boolean) {
    if (!use || !this.d.cacheEnabled) return undefined;
    return this.d.cache.lookup(tenant, key);
  }

  /** Candidates in order over the tiers the call may reach. */
  *candidates(tenant: string, route: ReturnType<typeof resolveRoute>): Generator<CatalogModel> {
    const limits = engagementLimits(this.d.budgets.get(tenant).engagementMode, this.d.maxEscalation);
    const top = Math.min(maxTier, route.tier + limits.maxEscalation);
    for (let tier = route.tier; tier <= top; tier++) {
      const list = orderCandidates(this.d.catalog, this.d.circuits, tenant, tier, route.pinned).slice(0, limits.candidatesPerTier);
      yield* list;
    }
  }

  /**
   * Runs `attempt` against each candidate until one succeeds; records each attempt and feeds the
   * circuits. A non-retryable failure ends the call at once.
   */
  async route<T>(
    tenant: string,
    callId: string,
    route: ReturnType<typeof resolveRoute>,
    attempts: AttemptRecord[],
    attempt: (model: CatalogModel) => Promise<T>,
  ): Promise<{ model: CatalogModel; value: T }> {
    for (const model of this.candidates(tenant, route)) {
      const providerCircuit = this.d.circuits.get(tenant, 'provider', model.provider);
      const modelCircuit = this.d.circuits.get(tenant, 'model', model.id);
      if (!providerCircuit.available() || !modelCircuit.tryPass() || !providerCircuit.tryPass()) {
        attempts.push({ model: model.id, tier: model.tier, outcome: 'circuit_open', latencyMs: 0 });
        this.emit(tenant, callId, 'llm.attempt', { callId, ...attempts.at(-1)! });
        continue;
      }
      const t0 = performance.now();
      try {
        const value = await attempt(model);
        modelCircuit.success();
        providerCircuit.success();
        attempts.push({ model: model.id, tier: model.tier, outcome: 'ok', latencyMs: Math.round(performance.now() - t0) });
        this.emit(tenant, callId, 'llm.attempt', { callId, ...attempts.at(-1)! });
        return { model, value };
      } catch (err) {
        const failure = err instanceof ProviderFailure ? err : new ProviderFailure('malformed', (err as Error).message);
        const message = redact(failure.message, this.d.secrets(tenant));
        if (failure.retryable) {
          modelCircuit.failure(message);
          providerCircuit.failure(message);
        } else {
          // A refused request says nothing about the model's health.
          modelCircuit.success();
          providerCircuit.success();
        }
        attempts.push({
          model: model.id,
          tier: model.tier,
          outcome: failure.kind,
          ...(failure.status ? { status: failure.status } : {}),
          latencyMs: Math.round(performance.now() - t0),
          error: message,
        });
        this.emit(tenant, callId, 'llm.attempt', { callId, ...attempts.at(-1)! });
        if (!failure.retryable)
          throw errors.provider_rejected({ status: failure.status ?? 400, reason: message }, { details: { status: failure.status, attempts } });
      }
    }
    const reason = attempts.length === 0 ? 'the tier has no models' : `${attempts.length} attempt(s) failed or were refused by open circuits`;
    throw errors.no_candidates({ tier: route.tier, reason }, { details: { tier: route.tier, reason, attempts } });
  }

  /** A whole (non-streamed) call. */
  async complete(input: CallInput): Promise<{ result: ChatResult; summary: CallSummary }> {
    const p = await this.prepare(input);
    const hit = await this.lookup(input.tenant, p.key, input.cache);
    if (hit) return this.fromCache(input.tenant, p, hit);
    const attempts: AttemptRecord[] = [];
    const provider = this.d.provider(input.tenant);
    try {
      const { model, value } = await this.route(input.tenant, p.callId, p.route, attempts, (m) =>
        provider.complete({ ...p.request, model: m.id }, { timeoutMs: this.d.callTimeoutMs, ...(input.signal ? { signal: input.signal } : {}) }),
      );
      const summary = await this.finish(input.tenant, p, model, value.usage, attempts, input.cache ? 'miss' : 'off', 'ok');
      if (input.cache) this.store(input.tenant, p.key, model.id, value);
      return { result: value, summary };
    } catch (err) {
      await this.failed(input.tenant, p, attempts, err);
      throw err;
    }
  }

  /** Keeps a successful answer in the cache (the streamed path calls it once the stream is whole). */
  store(tenant: string, key: CacheKey, modelId: string, result: ChatResult): void {
    if (this.d.cacheEnabled) this.d.cache.put(tenant, key, modelId, result);
  }

  /** Opens a stream on the first candidate that yields a first delta (failover happens before any byte is sent). */
  async openStream(tenant: string, p: Awaited<ReturnType<Gateway['prepare']>>, attempts: AttemptRecord[], signal?: AbortSignal): Promise<OpenStream> {
    const provider = this.d.provider(tenant);
    const { model, value } = await this.route(tenant, p.callId, p.route, attempts, async (m) => {
      const it = provider.stream({ ...p.request, model: m.id }, { timeoutMs: this.d.callTimeoutMs, ...(signal ? { signal } : {}) })[Symbol.asyncIterator]();
      const first = await it.next();
      return { first, rest: it };
    });
    return { model, ...value };
  }

  async fromCache(tenant: string, p: Awaited<ReturnType<Gateway['prepare']>>, hit: NonNullable<Awaited<ReturnType<Gateway['lookup']>>>) {
    const model = this.d.catalog.get(tenant, hit.answer.modelId);
    const usage = hit.answer.result.usage;
    const dollars = model ? costOf(model, usage) : 0;
    this.d.cache.record(tenant, { kind: hit.kind, tokens: usage.total_tokens, dollars });
    this.d.metrics.cache.inc({ result: hit.kind });
    this.d.metrics.saved.inc({ kind: 'tokens' }, usage.total_tokens);
    this.d.metrics.saved.inc({ kind: 'usd' }, dollars);
    await this.d.events.append(
      'cache.hit',
      {
        callId: p.callId,
        kind: hit.kind,
        similarity: hit.answer.similarity,
        model: hit.answer.modelId,
        tokensSaved: usage.total_tokens,
        dollarsSaved: dollars,
      },
      { tenant, subject: p.callId },
    );
    const zero = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
    const summary = await this.finish(
      tenant,
      p,
      model ?? { id: hit.answer.modelId, tier: p.route.tier, pricing: { promptPer1M: 0, completionPer1M: 0 } },
      zero,
      [],
      hit.kind,
      'ok',
    );
    return { result: hit.answer.result, summary };
  }

  /** Records the call's outcome (event `llm.call`, metrics) and returns its summary. */
  async finish(
    tenant: string,
    p: Awaited<ReturnType<Gateway['prepare']>>,
    model: Pick<CatalogModel, 'id' | 'tier' | 'pricing'>,
    usage: Usage,
    attempts: AttemptRecord[],
    cache: CallSummary['cache'],
    outcome: string,
  ): Promise<CallSummary> {
    const latencyMs = Math.round((performance.now() - p.started) * 100) / 100;
    const summary: CallSummary = {
      callId: p.callId,
      requestedTier: p.route.tier,
      tier: model.tier,
      model: model.id,
      cache,
      attempts,
      usage,
      costUsd: costOf(model, usage),
      latencyMs,
      budgetCut: p.budgetCut,
    };
    if (cache === 'miss') {
      this.d.cache.record(tenant, { kind: 'miss' });
      this.d.metrics.cache.inc({ result: 'miss' });
    }
    this.d.metrics.calls.inc({ tier: String(model.tier), outcome, cache });
    this.d.metrics.tokens.inc({ direction: 'in' }, usage.prompt_tokens);
    this.d.metrics.tokens.inc({ direction: 'out' }, usage.completion_tokens);
    this.d.metrics.cost.inc(summary.costUsd);
    this.d.metrics.latency.observe({ tier: String(model.tier) }, latencyMs / 1000);
    for (const a of attempts) this.d.metrics.attempts.inc({ outcome: a.outcome });
    this.emit(tenant, p.callId, 'llm.call', {
      callId: p.callId,
      outcome,
      model: model.id,
      tier: model.tier,
      requestedTier: p.route.tier,
      escalated: model.tier > p.route.tier,
      tokensIn: usage.prompt_tokens,
      tokensOut: usage.completion_tokens,
      ...(usage.reasoning_tokens !== undefined ? { reasoningTokens: usage.reasoning_tokens } : {}),
      costUsd: summary.costUsd,
      latencyMs,
      cache,
      attempts: attempts.length,
      budgetCut: p.budgetCut,
    });
    return summary;
  }

  /** A stream that broke after its first delta counts against the model and its vendor. */
  streamBroke(tenant: string, model: CatalogModel, message: string): void {
    this.d.circuits.get(tenant, 'model', model.id).failure(message);
    this.d.circuits.get(tenant, 'provider', model.provider).failure(message);
  }

  async failed(tenant: string, p: Awaited<ReturnType<Gateway['prepare']>>, attempts: AttemptRecord[], err: unknown): Promise<void> {
    const code = (err as { code?: string }).code ?? 'error';
    this.d.metrics.calls.inc({ tier: String(p.route.tier), outcome: code, cache: 'miss' });
    for (const a of attempts) this.d.metrics.attempts.inc({ outcome: a.outcome });
    await this.d.events.append(
      'llm.call',
      {
        callId: p.callId,
        outcome: code,
        requestedTier: p.route.tier,
        attempts: attempts.length,
        latencyMs: Math.round(performance.now() - p.started),
        error: redact((err as Error).message, this.d.secrets(tenant)),
      },
      { tenant, subject: p.callId },
    );
  }

  /**
   * Appends a telemetry event off the call's path: ids are taken in call order at once, so the feed
   * keeps its order and omits nothing; the answer does not wait for the write (a write that fails
   * is logged by the event log and leaves an `event.lost` marker).
   */
  private emit(tenant: string, callId: string, type: string, data: Record<string, unknown>): void {
    this.d.events.append(type, data, { tenant, subject: callId }).catch(() => {});
  }
}
