import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startProviderServer, type ModelListServer } from './provider-server.js';
import { eventsOf, startAgent, type AgentApp } from './support.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let n = 0;
const ask = (model: string, extra: Record<string, unknown> = {}) => ({
  model,
  messages: [{ role: 'user', content: `question ${++n} ${Math.random()}` }],
  cache: false,
  ...extra,
});

describe('agent LLM gateway: routing, failover, circuits, budgets', () => {
  let t: AgentApp;
  let provider: ModelListServer;
  beforeAll(async () => {
    provider = await startProviderServer();
    t = await startAgent({ baseUrl: provider.baseUrl, callTimeoutMs: 400, breaker: { consecutiveFailures: 2, cooldownMs: 300, minCalls: 100 } });
  });
  afterAll(async () => {
    await t.stop();
    await provider.close();
  });
  const chat = (body: unknown) => t.call('POST', '/api/v1/chat/completions', body);
  /**
   * A circuit's cooldown runs on the clock. The circuit tests stop `Date` (timers stay real, the app
   * runs in this process) so that no step, however slow the machine, moves a circuit on by itself,
   * and they pass the cooldown by setting the clock.
   */
  const stopClock = () => vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
  const circuit = async (name: string) =>
    ((await t.call('GET', '/api/v1/telemetry/circuit-breakers')).body.circuits as Array<{ name: string; state: string }>).find((c) => c.name === name)!;
  afterEach(() => {
    vi.useRealTimers();
  });

  it("answers a tier call with the tier's cheapest model, in OpenAI's shape, with its cost from the catalogue's prices", async () => {
    const res = await chat({ model: 'tier:3', messages: [{ role: 'user', content: 'fix the off-by-one' }], cache: false });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^chatcmpl-call_/),
      object: 'chat.completion',
      created: expect.any(Number),
      model: 'deepseek/deepseek-chat',
      choices: [{ index: 0, message: { role: 'assistant', content: 'answer from deepseek/deepseek-chat to: fix the off-by-one' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 12, completion_tokens: 8, total_tokens: 20 },
      tessera: {
        callId: expect.stringMatching(/^call_/),
        requestedTier: 3,
        tier: 3,
        cache: 'off',
        costUsd: (12 * 0.15 + 8 * 0.6) / 1e6,
        latencyMs: expect.any(Number),
        budgetCut: null,
        attempts: [{ model: 'deepseek/deepseek-chat', tier: 3, outcome: 'ok', latencyMs: expect.any(Number) }],
      },
    });
    const call = (await eventsOf(t, `kind=llm.call&job=${res.body.tessera.callId}`))[0].data;
    expect(call).toMatchObject({
      outcome: 'ok',
      model: 'deepseek/deepseek-chat',
      tier: 3,
      tokensIn: 12,
      tokensOut: 8,
      costUsd: (12 * 0.15 + 8 * 0.6) / 1e6,
      cache: 'off',
      attempts: 1,
    });
  });

  it('maps a task class to its tier', async () => {
    const res = await chat(ask('task:code-review'));
    expect(res.body.tessera.requestedTier).toBe(6);
    expect((await chat(ask('task:nonsense'))).body.error.code).toBe('unknown_task_class');
  });

  it('rotates to the next candidate on 429, 500, a timeout and a malformed answer, recording every attempt', async () => {
    for (const fail of [429, 500, 'hang', 'garbage'] as const) {
      provider.scripts.set('deepseek/deepseek-chat', [{ fail }]);
      const res = await chat(ask('tier:3'));
      expect(res.status).toBe(200);
      expect(res.body.model).toBe('qwen/qwen-2.5-coder-32b-instruct');
      const outcome = { 429: 'rate_limited', 500: 'server_error', hang: 'timeout', garbage: 'malformed' }[fail];
      expect(res.body.tessera.attempts.map((a: { model: string; outcome: string }) => [a.model, a.outcome])).toEqual([
        ['deepseek/deepseek-chat', outcome],
        ['qwen/qwen-2.5-coder-32b-instruct', 'ok'],
      ]);
      const events = await eventsOf(t, `kind=llm.attempt&job=${res.body.tessera.callId}`, 2);
      expect(events.map((e: { data: { outcome: string } }) => e.data.outcome)).toEqual([outcome, 'ok']);
      // A success in between keeps the model's circuit closed (two failures in a row would open it).
      expect((await chat(ask('deepseek/deepseek-chat'))).body.model).toBe('deepseek/deepseek-chat');
    }
  });

  it('escalates one tier up when every candidate of the tier fails', async () => {
    provider.scripts.set('deepseek/deepseek-chat', [{ fail: 503 }]);
    provider.scripts.set('qwen/qwen-2.5-coder-32b-instruct', [{ fail: 502 }]);
    const res = await chat(ask('tier:3'));
    expect(res.status).toBe(200);
    expect(res.body.tessera).toMatchObject({ requestedTier: 3, tier: 4 });
    expect(res.body.model).toBe('meta-llama/llama-3.3-70b-instruct');
    const call = (await eventsOf(t, `kind=llm.call&job=${res.body.tessera.callId}`))[0].data;
    expect(call).toMatchObject({ escalated: true, tier: 4, requestedTier: 3, attempts: 3 });
  });

  it('ends the call on a client error the provider would give any model (no rotation)', async () => {
    provider.scripts.set('deepseek/deepseek-chat', [{ fail: 400 }]);
    const before = provider.chats.length;
    const res = await chat(ask('tier:3'));
    expect(res.status).toBe(502);
    expect(res.body.error.code).toBe('provider_rejected');
    expect(provider.chats.length - before).toBe(1);
  });

  it('opens a circuit after consecutive failures, skips the model while open, probes once after the cooldown and closes on success', async () => {
    const pinned = 'google/gemma-3-4b-it';
    provider.scripts.set(pinned, [{ fail: 500 }, { fail: 500 }]);
    stopClock();
    await chat(ask(pinned));
    await chat(ask(pinned));
    let circuits = (await t.call('GET', '/api/v1/telemetry/circuit-breakers')).body.circuits;
    const model = circuits.find((c: { name: string }) => c.name === `model:${pinned}`);
    expect(model).toMatchObject({ kind: 'model', state: 'open', consecutiveFailures: 2, lastError: { message: 'HTTP 500: Upstream error' } });
    expect(Date.parse(model.nextProbeAt) - Date.parse(model.openedAt)).toBe(300);
    expect(circuits.find((c: { name: string }) => c.name === 'provider:google').state).toBe('open');

    const before = provider.chats.filter((c) => c.model === pinned).length;
    const skipped = await chat(ask(pinned));
    expect(skipped.body.tessera.attempts[0]).toMatchObject({ model: pinned, outcome: 'circuit_open' });
    expect(skipped.body.model).toBe('meta-llama/llama-3.2-1b-instruct');
    expect(provider.chats.filter((c) => c.model === pinned).length).toBe(before);

    // Open until the cooldown's last millisecond, half-open from its end.
    vi.setSystemTime(Date.parse(model.nextProbeAt) - 1);
    expect((await circuit(`model:${pinned}`)).state).toBe('open');
    vi.setSystemTime(Date.parse(model.nextProbeAt));
    expect((await circuit(`model:${pinned}`)).state).toBe('half_open');
    const probe = await chat(ask(pinned));
    expect(probe.body.model).toBe(pinned);
    circuits = (await t.call('GET', '/api/v1/telemetry/circuit-breakers')).body.circuits;
    expect(circuits.find((c: { name: string }) => c.name === `model:${pinned}`)).toMatchObject({
      state: 'closed',
      consecutiveFailures: 0,
      openedAt: null,
      nextProbeAt: null,
    });
    let transitions: string[] = [];
    for (let i = 0; i < 100 && transitions.length < 3; i++) {
      transitions = (await eventsOf(t, 'kind=circuit.transition'))
        .map((e: { data: { circuit: string; from: string; to: string } }) => e.data)
        .filter((d: { circuit: string }) => d.circuit === `model:${pinned}`)
        .map((d: { from: string; to: string }) => `${d.from}>${d.to}`);
      if (transitions.length < 3) await sleep(20);
    }
    expect(transitions).toEqual(['closed>open', 'open>half_open', 'half_open>closed']);
  });

  it('reopens a circuit whose probe fails', async () => {
    const pinned = 'mistralai/ministral-8b';
    provider.scripts.set(pinned, [{ fail: 500 }, { fail: 500 }, { fail: 500 }]);
    stopClock();
    await chat(ask(pinned));
    await chat(ask(pinned));
    vi.setSystemTime(Date.now() + 300);
    const probe = await chat(ask(pinned));
    expect(probe.body.tessera.attempts[0]).toMatchObject({ model: pinned, outcome: 'server_error' });
    const c = await circuit(`model:${pinned}`);
    expect(c).toMatchObject({ state: 'open', openedAt: new Date(Date.now()).toISOString(), nextProbeAt: new Date(Date.now() + 300).toISOString() });
  });

  it('cuts a request over the token budget to the budget, visibly in the answer and in telemetry', async () => {
    const set = await t.call('POST', '/api/v1/tokens/budget', { maxOutputTokens: 100 });
    expect(set.body.budget).toEqual({
      maxOutputTokens: 100,
      suppressThinkingStream: false,
      engagementMode: 'balanced',
      maxOutputTokensCeiling: 32768,
      limits: { maxEscalation: 2, candidatesPerTier: 4, maxIterations: 4 },
    });
    const res = await chat(ask('tier:2', { max_tokens: 500 }));
    expect(provider.chats.at(-1)!.body.max_tokens).toBe(100);
    expect(res.body.tessera.budgetCut).toEqual({ requested: 500, allowed: 100 });
    const cut = (await eventsOf(t, `kind=budget.cut&job=${res.body.tessera.callId}`))[0].data;
    expect(cut).toEqual({ callId: res.body.tessera.callId, requested: 500, allowed: 100, engagementMode: 'balanced' });
    await chat(ask('tier:2'));
    expect(provider.chats.at(-1)!.body.max_tokens).toBe(100);
    expect((await t.call('POST', '/api/v1/tokens/budget', { maxOutputTokens: 40000 })).status).toBe(400);
  });

  it('does not escalate in minimal engagement mode', async () => {
    await t.call('POST', '/api/v1/tokens/budget', { engagementMode: 'minimal' });
    provider.scripts.set('mistralai/codestral-2501', [{ fail: 500 }]);
    provider.scripts.set('meta-llama/llama-3.3-70b-instruct', [{ fail: 500 }]);
    const res = await chat(ask('tier:4'));
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('no_candidates');
    expect(res.body.error.details.attempts.map((a: { tier: number }) => a.tier)).toEqual([4, 4]);
    await t.call('POST', '/api/v1/tokens/budget', { engagementMode: 'balanced' });
  });

  it('strips thinking from whole answers when suppression is on, still counting its tokens', async () => {
    await t.call('POST', '/api/v1/tokens/budget', { suppressThinkingStream: true });
    provider.scripts.set('qwen/qwen-2.5-coder-7b-instruct', [
      { content: '<think>weigh the options</think>\n\nUse a mutex.', reasoning: 'private chain', usage: { prompt: 30, completion: 90, reasoning: 60 } },
    ]);
    const res = await chat(ask('qwen/qwen-2.5-coder-7b-instruct'));
    expect(res.body.choices[0].message).toEqual({ role: 'assistant', content: 'Use a mutex.' });
    expect(res.body.usage).toEqual({ prompt_tokens: 30, completion_tokens: 90, total_tokens: 120, reasoning_tokens: 60 });
    const call = (await eventsOf(t, `kind=llm.call&job=${res.body.tessera.callId}`))[0].data;
    expect(call).toMatchObject({ tokensOut: 90, reasoningTokens: 60 });
    await t.call('POST', '/api/v1/tokens/budget', { suppressThinkingStream: false });
  });
});
