import { expect } from 'vitest';
import { defineConformance } from 'tessera-runtime/testing';
import { ProviderFailure, type ChatDelta, type LlmProvider } from '../../../plugins/agent/llm-provider.js';
import { StreamAccumulator } from '../../../plugins/agent/openai-provider.js';
import type { ChatScript } from './provider-server.js';

/** A provider under test, and how to script the answers of the server behind it. */
export interface ProviderSubject {
  provider: LlmProvider;
  script(model: string, answers: ChatScript[]): void;
}

const ask = (model: string) => ({ model, messages: [{ role: 'user' as const, content: 'hello' }], max_tokens: 64 });

async function collect(it: AsyncIterable<ChatDelta>): Promise<StreamAccumulator> {
  const acc = new StreamAccumulator();
  for await (const d of it) acc.add(d);
  return acc;
}

async function failure(p: Promise<unknown>): Promise<ProviderFailure> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProviderFailure);
  return err as ProviderFailure;
}

/** What every LLM provider behind the gateway does (OpenAI-compatible and any other protocol). */
export const llmProviderConformance = defineConformance<ProviderSubject>('LLM provider', {
  'returns the whole answer with its usage': async ({ provider, script }) => {
    script('m/a', [{ content: 'Hello there.', usage: { prompt: 7, completion: 3 } }]);
    const r = await provider.complete(ask('m/a'));
    expect(r.message).toEqual({ role: 'assistant', content: 'Hello there.' });
    expect(r.finish_reason).toBe('stop');
    expect(r.usage).toEqual({ prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 });
  },
  'returns tool calls whole': async ({ provider, script }) => {
    script('m/a', [{ toolCalls: [{ id: 'c1', name: 'run_tests', arguments: '{"path":"tests/"}' }] }]);
    const r = await provider.complete(ask('m/a'));
    expect(r.message.tool_calls).toEqual([{ id: 'c1', type: 'function', function: { name: 'run_tests', arguments: '{"path":"tests/"}' } }]);
    expect(r.finish_reason).toBe('tool_calls');
  },
  'returns reasoning apart from the content': async ({ provider, script }) => {
    script('m/a', [{ content: 'Done.', reasoning: 'first think', usage: { prompt: 1, completion: 9, reasoning: 6 } }]);
    const r = await provider.complete(ask('m/a'));
    expect(r.message).toEqual({ role: 'assistant', content: 'Done.', reasoning: 'first think' });
    expect(r.usage.reasoning_tokens).toBe(6);
  },
  'streams deltas that join into the answer, tool-call fragments and the final usage': async ({ provider, script }) => {
    script('m/a', [
      { content: 'Streaming works fine.', toolCalls: [{ id: 'c2', name: 'read_file', arguments: '{"file":"main.go"}' }], usage: { prompt: 4, completion: 6 } },
    ]);
    const acc = await collect(provider.stream(ask('m/a')));
    expect(acc.content).toBe('Streaming works fine.');
    expect(acc.toolCalls()).toEqual([{ id: 'c2', type: 'function', function: { name: 'read_file', arguments: '{"file":"main.go"}' } }]);
    expect(acc.finishReason).toBe('tool_calls');
    expect(acc.usage).toEqual({ prompt_tokens: 4, completion_tokens: 6, total_tokens: 10 });
  },
  'reports 429 as rate_limited (retryable) with its Retry-After': async ({ provider, script }) => {
    script('m/a', [{ fail: 429 }]);
    const f = await failure(provider.complete(ask('m/a')));
    expect([f.kind, f.retryable, f.status, f.retryAfterMs]).toEqual(['rate_limited', true, 429, 1000]);
  },
  'reports 5xx as server_error (retryable)': async ({ provider, script }) => {
    script('m/a', [{ fail: 503 }]);
    const f = await failure(provider.complete(ask('m/a')));
    expect([f.kind, f.retryable, f.status]).toEqual(['server_error', true, 503]);
  },
  'reports 400 as rejected (not retryable)': async ({ provider, script }) => {
    script('m/a', [{ fail: 400 }]);
    const f = await failure(provider.complete(ask('m/a')));
    expect([f.kind, f.retryable, f.status]).toEqual(['rejected', false, 400]);
  },
  'reports an answer that is not a chat completion as malformed': async ({ provider, script }) => {
    script('m/a', [{ fail: 'garbage' }]);
    expect((await failure(provider.complete(ask('m/a')))).kind).toBe('malformed');
  },
  'reports a silent server as timeout': async ({ provider, script }) => {
    script('m/a', [{ fail: 'hang' }]);
    expect((await failure(provider.complete(ask('m/a'), { timeoutMs: 200 }))).kind).toBe('timeout');
  },
  'fails a stream cut before [DONE]': async ({ provider, script }) => {
    script('m/a', [{ content: 'partial answer', fail: 'cut-stream' }]);
    const f = await failure(collect(provider.stream(ask('m/a'))));
    expect(f.retryable).toBe(true);
  },
});
