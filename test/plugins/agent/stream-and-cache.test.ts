import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProviderServer, type ModelListServer } from './provider-server.js';
import { readSse } from './sse-client.js';
import { eventsOf, startAgent, type AgentApp } from './support.js';

describe('agent gateway streaming and semantic cache', () => {
  let t: AgentApp;
  let provider: ModelListServer;
  beforeAll(async () => {
    provider = await startProviderServer();
    t = await startAgent({ baseUrl: provider.baseUrl, cache: { similarityThreshold: 0.8 } });
  });
  afterAll(async () => {
    await t.stop();
    await provider.close();
  });

  const stream = async (body: Record<string, unknown>) => {
    const res = await fetch(`${t.base}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...body, stream: true }),
    });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const messages = await readSse(res);
    expect(messages.at(-1)!.data).toBe('[DONE]');
    return messages.slice(0, -1).map((m) => JSON.parse(m.data));
  };

  it('streams chunks in order, reassembles tool-call fragments and ends with a usage chunk and [DONE]', async () => {
    provider.scripts.set('deepseek/deepseek-chat', [
      {
        content: 'Patch ready.',
        reasoning: 'look at the loop',
        toolCalls: [{ id: 'call_1', name: 'apply_patch', arguments: '{"file":"a.py","hunks":2}' }],
        usage: { prompt: 40, completion: 25 },
      },
    ]);
    const chunks = await stream({ model: 'tier:3', messages: [{ role: 'user', content: 'stream a patch' }], cache: false });
    expect(chunks[0].choices[0].delta.role).toBe('assistant');
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.model === 'deepseek/deepseek-chat')).toBe(true);
    const content = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(content).toBe('Patch ready.');
    expect(chunks.map((c) => c.choices[0]?.delta.reasoning ?? '').join('')).toBe('look at the loop');
    const args = chunks
      .flatMap((c) => c.choices[0]?.delta.tool_calls ?? [])
      .map((tc: { function?: { arguments?: string } }) => tc.function?.arguments ?? '')
      .join('');
    expect(args).toBe('{"file":"a.py","hunks":2}');
    expect(chunks.find((c) => c.choices[0]?.finish_reason)?.choices[0].finish_reason).toBe('tool_calls');
    const last = chunks.at(-1);
    expect(last.choices).toEqual([]);
    expect(last.usage).toEqual({ prompt_tokens: 40, completion_tokens: 25, total_tokens: 65 });
    expect(last.tessera).toMatchObject({ tier: 3, cache: 'off', costUsd: (40 * 0.15 + 25 * 0.6) / 1e6 });
  });

  it('fails over before the first byte of a stream', async () => {
    provider.scripts.set('deepseek/deepseek-chat', [{ fail: 500 }]);
    const chunks = await stream({ model: 'tier:3', messages: [{ role: 'user', content: 'stream again' }], cache: false });
    expect(chunks[0].model).toBe('qwen/qwen-2.5-coder-32b-instruct');
    expect(chunks.at(-1).tessera.attempts.map((a: { outcome: string }) => a.outcome)).toEqual(['server_error', 'ok']);
  });

  it('ends a stream the provider cuts mid-way with an error chunk', async () => {
    provider.scripts.set('deepseek/deepseek-chat', [{ content: 'half an answer', fail: 'cut-stream' }]);
    const chunks = await stream({ model: 'tier:3', messages: [{ role: 'user', content: 'stream cut' }], cache: false });
    expect(chunks[0].choices[0].delta).toEqual({ role: 'assistant', content: 'half ' });
    expect(chunks.at(-1)).toEqual({ error: { message: expect.stringContaining('The provider failed mid-stream'), code: 'stream_interrupted' } });
    const call = (await eventsOf(t, `kind=llm.call&job=${chunks[0].id.replace('chatcmpl-', '')}`))[0].data;
    expect(call).toMatchObject({ outcome: 'error', attempts: 1 });
    const circuit = (await t.call('GET', '/api/v1/telemetry/circuit-breakers')).body.circuits.find(
      (c: { name: string }) => c.name === 'model:deepseek/deepseek-chat',
    );
    expect(circuit.lastError.message).toContain('mid-stream');
  });

  it('suppresses <think> blocks and reasoning fields in streamed output while counting their tokens', async () => {
    await t.call('POST', '/api/v1/tokens/budget', { suppressThinkingStream: true });
    provider.scripts.set('deepseek/deepseek-chat', [
      { content: 'Hi <think>secret plan spanning chunks</think>there', reasoning: 'hidden', usage: { prompt: 5, completion: 50, reasoning: 30 } },
    ]);
    const chunks = await stream({ model: 'tier:3', messages: [{ role: 'user', content: 'think quietly' }], cache: false });
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe('Hi there');
    expect(chunks.some((c) => c.choices[0]?.delta.reasoning !== undefined)).toBe(false);
    expect(chunks.at(-1).usage).toEqual({ prompt_tokens: 5, completion_tokens: 50, total_tokens: 55, reasoning_tokens: 30 });
    await t.call('POST', '/api/v1/tokens/budget', { suppressThinkingStream: false });
  });

  it('answers a repeated prompt from the exact layer and a reworded one from the semantic layer, counting savings at catalogue prices', async () => {
    const before = (await t.call('GET', '/api/v1/cache/stats')).body.stats;
    const question = 'Explain why the function parse_date in utils/dates.py fails on leap years';
    const first = await t.call('POST', '/api/v1/chat/completions', { model: 'tier:5', messages: [{ role: 'user', content: question }] });
    expect(first.body.tessera.cache).toBe('miss');
    const calls = provider.chats.length;
    const again = await t.call('POST', '/api/v1/chat/completions', { model: 'tier:5', messages: [{ role: 'user', content: `  ${question.toUpperCase()} ` }] });
    expect(again.body.tessera.cache).toBe('exact');
    expect(again.body.choices[0].message).toEqual(first.body.choices[0].message);
    expect(again.body.tessera.costUsd).toBe(0);
    const reworded = await t.call('POST', '/api/v1/chat/completions', {
      model: 'tier:5',
      messages: [{ role: 'user', content: 'Explain why function parse_date in utils/dates.py fails on a leap year' }],
    });
    expect(reworded.body.tessera.cache).toBe('semantic');
    expect(reworded.body.choices[0].message).toEqual(first.body.choices[0].message);
    expect(provider.chats.length).toBe(calls);
    const other = await t.call('POST', '/api/v1/chat/completions', {
      model: 'tier:5',
      messages: [{ role: 'user', content: 'Write a haiku about database migrations' }],
    });
    expect(other.body.tessera.cache).toBe('miss');
    // Another tier is another model class: no hit.
    const otherTier = await t.call('POST', '/api/v1/chat/completions', { model: 'tier:6', messages: [{ role: 'user', content: question }] });
    expect(otherTier.body.tessera.cache).toBe('miss');

    const model = first.body.model;
    const catalogModel = (await t.call('GET', '/api/v1/models/catalog?tier=5')).body.models.find((m: { id: string }) => m.id === model);
    const saved = (12 * catalogModel.pricing.promptPer1M + 8 * catalogModel.pricing.completionPer1M) / 1e6;
    const stats = (await t.call('GET', '/api/v1/cache/stats')).body.stats;
    expect(stats).toEqual({
      entries: before.entries + 3,
      hits: before.hits + 2,
      exactHits: before.exactHits + 1,
      semanticHits: before.semanticHits + 1,
      misses: before.misses + 3,
      hitRate: (before.hits + 2) / (before.hits + before.misses + 5),
      tokensSaved: before.tokensSaved + 40,
      dollarsSaved: expect.closeTo(before.dollarsSaved + 2 * saved, 12),
      similarityThreshold: 0.8,
      enabled: true,
    });
    const hits = (await eventsOf(t, 'kind=cache.hit', 2)).map((e: { data: { kind: string } }) => e.data.kind);
    expect(hits.slice(-2)).toEqual(['exact', 'semantic']);
  });

  it('serves a streamed call from the cache', async () => {
    const q = 'List the steps to rotate an API key safely';
    await t.call('POST', '/api/v1/chat/completions', { model: 'tier:2', messages: [{ role: 'user', content: q }] });
    const chunks = await stream({ model: 'tier:2', messages: [{ role: 'user', content: q }] });
    expect(chunks.at(-1).tessera.cache).toBe('exact');
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe(`answer from ${chunks[0].model} to: ${q}`);
  });

  it("purges a removed model's entries and flushes everything on clear", async () => {
    await t.call('POST', '/api/v1/models/catalog', { id: 'local/purge-me', tier: 7, pricing: { promptPer1M: 0.01, completionPer1M: 0.01 } });
    const q = 'Which lock guards the session map?';
    const first = await t.call('POST', '/api/v1/chat/completions', { model: 'local/purge-me', messages: [{ role: 'user', content: q }] });
    expect(first.body.model).toBe('local/purge-me');
    const removed = await t.call('DELETE', '/api/v1/models/catalog?id=local/purge-me');
    expect(removed.body.cacheEntriesPurged).toBe(1);
    const after = await t.call('POST', '/api/v1/chat/completions', { model: 'tier:7', messages: [{ role: 'user', content: q }] });
    expect(after.body.tessera.cache).toBe('miss');

    const entries = (await t.call('GET', '/api/v1/cache/stats')).body.stats.entries;
    expect(entries).toBeGreaterThan(0);
    const cleared = await t.call('POST', '/api/v1/cache/clear');
    expect(cleared.body).toEqual({ ok: true, cleared: entries });
    expect((await t.call('GET', '/api/v1/cache/stats')).body.stats.entries).toBe(0);
    const miss = await t.call('POST', '/api/v1/chat/completions', { model: 'tier:7', messages: [{ role: 'user', content: q }] });
    expect(miss.body.tessera.cache).toBe('miss');
  });
});
