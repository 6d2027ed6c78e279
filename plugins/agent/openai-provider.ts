import { isTesseraError, type OutboundResponse } from 'tessera-runtime/plugin';
import {
  ProviderFailure,
  type CallOptions,
  type ChatDelta,
  type ChatRequest,
  type ChatResult,
  type LlmProvider,
  type ToolCall,
  type Usage,
} from './llm-provider.js';

export type ProviderRequest = (path: string, init: { method: string; body: unknown; signal?: AbortSignal; timeoutMs?: number }) => Promise<OutboundResponse>;

/**
 * An OpenAI-compatible chat-completions client: OpenAI itself, OpenRouter, and the local servers
 * (llama.cpp's server, Ollama's `/v1`, vLLM). Plain HTTP through `ctx.outbound`; streaming reads the
 * `data:` lines of the SSE answer and asks for a final usage chunk (`stream_options.include_usage`).
 */
export class OpenAiCompatibleProvider implements LlmProvider {
  constructor(
    readonly name: string,
    private readonly request: ProviderRequest,
  ) {}

  async complete(request: ChatRequest, options: CallOptions = {}): Promise<ChatResult> {
    const res = await this.send({ ...request, stream: false }, options);
    let body: any;
    try {
      body = await res.json();
    } catch {
      throw new ProviderFailure('malformed', 'the provider answered a body that is not JSON', res.status);
    }
    const choice = body?.choices?.[0];
    const message = choice?.message;
    if (!message || typeof message !== 'object' || (typeof message.content !== 'string' && message.content !== null && !Array.isArray(message.tool_calls))) {
      throw new ProviderFailure('malformed', 'the provider answered without choices[0].message', res.status);
    }
    const reasoning = message.reasoning ?? message.reasoning_content;
    return {
      id: String(body.id ?? ''),
      model: String(body.model ?? request.model),
      message: {
        role: 'assistant',
        content: typeof message.content === 'string' ? message.content : null,
        ...(Array.isArray(message.tool_calls) && message.tool_calls.length > 0 ? { tool_calls: message.tool_calls as ToolCall[] } : {}),
        ...(typeof reasoning === 'string' && reasoning !== '' ? { reasoning } : {}),
      },
      finish_reason: choice.finish_reason ?? null,
      usage: usageOf(body.usage),
    };
  }

  async *stream(request: ChatRequest, options: CallOptions = {}): AsyncIterable<ChatDelta> {
    const res = await this.send({ ...request, stream: true, stream_options: { include_usage: true } }, options);
    let buffer = '';
    let done = false;
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.stream()) {
        buffer += decoder.decode(chunk, { stream: true });
        let nl: number;
        while ((nl = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, nl).replace(/\r$/, '');
          buffer = buffer.slice(nl + 1);
          if (!line.startsWith('data:')) continue;
          const data = line.slice(5).trim();
          if (data === '[DONE]') {
            done = true;
            continue;
          }
          const delta = parseChunk(data);
          if (delta) yield delta;
        }
      }
    } catch (err) {
      throw asFailure(err);
    }
    if (!done) throw new ProviderFailure('malformed', 'the stream ended without data: [DONE]');
  }

  private async send(body: Record<string, unknown>, options: CallOptions): Promise<OutboundResponse> {
    let res: OutboundResponse;
    try {
      res = await this.request('/chat/completions', {
        method: 'POST',
        body,
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
      });
    } catch (err) {
      throw asFailure(err);
    }
    if (res.status === 200) return res;
    const text = (await res.text().catch(() => '')).slice(0, 300);
    let reason = text;
    try {
      reason = JSON.parse(text)?.error?.message ?? text;
    } catch {
      // not JSON: keep the text
    }
    const retryAfter = Number(res.headers.get('retry-after'));
    const message = `HTTP ${res.status}${reason ? `: ${reason}` : ''}`;
    if (res.status === 429) throw new ProviderFailure('rate_limited', message, 429, Number.isFinite(retryAfter) ? retryAfter * 1000 : undefined);
    if (res.status >= 500 || res.status === 408) throw new ProviderFailure('server_error', message, res.status);
    throw new ProviderFailure('rejected', message, res.status);
  }
}

function parseChunk(data: string): ChatDelta | undefined {
  let body: any;
  try {
    body = JSON.parse(data);
  } catch {
    throw new ProviderFailure('malformed', 'the stream carried a chunk that is not JSON');
  }
  if (body?.error) throw new ProviderFailure('server_error', `stream error: ${body.error.message ?? 'unknown'}`);
  const choice = body?.choices?.[0];
  const delta: ChatDelta = {};
  const d = choice?.delta;
  if (d) {
    if (typeof d.content === 'string' && d.content !== '') delta.content = d.content;
    const reasoning = d.reasoning ?? d.reasoning_content;
    if (typeof reasoning === 'string' && reasoning !== '') delta.reasoning = reasoning;
    if (Array.isArray(d.tool_calls)) delta.tool_calls = d.tool_calls;
  }
  if (choice?.finish_reason) delta.finish_reason = choice.finish_reason;
  if (body?.usage) delta.usage = usageOf(body.usage);
  return Object.keys(delta).length > 0 ? delta : undefined;
}

function usageOf(raw: any): Usage {
  const prompt = Number(raw?.prompt_tokens ?? 0);
  const completion = Number(raw?.completion_tokens ?? 0);
  const reasoning = raw?.completion_tokens_details?.reasoning_tokens;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: Number(raw?.total_tokens ?? prompt + completion),
    ...(typeof reasoning === 'number' ? { reasoning_tokens: reasoning } : {}),
  };
}

function asFailure(err: unknown): ProviderFailure {
  if (err instanceof ProviderFailure) return err;
  if (isTesseraError(err)) {
    const code = (err as { code: string }).code;
    if (code === 'upstream_timeout') return new ProviderFailure('timeout', 'the provider did not answer in time');
    if (code === 'egress_denied') return new ProviderFailure('rejected', (err as Error).message, 403);
    return new ProviderFailure('unreachable', (err as Error).message);
  }
  const e = err as Error;
  if (e?.name === 'AbortError' || e?.name === 'TimeoutError') return new ProviderFailure('timeout', 'the provider did not answer in time');
  return new ProviderFailure('unreachable', e?.message ?? String(err));
}

/** Joins streamed deltas into the whole answer (what the cache stores and telemetry counts). */
export class StreamAccumulator {
  content = '';
  reasoning = '';
  finishReason: string | null = null;
  usage: Usage | undefined;
  private readonly calls = new Map<number, ToolCall>();

  add(delta: ChatDelta): void {
    if (delta.content) this.content += delta.content;
    if (delta.reasoning) this.reasoning += delta.reasoning;
    if (delta.finish_reason) this.finishReason = delta.finish_reason;
    if (delta.usage) this.usage = delta.usage;
    for (const part of delta.tool_calls ?? []) {
      const call = this.calls.get(part.index) ?? { id: '', type: 'function' as const, function: { name: '', arguments: '' } };
      if (part.id) call.id = part.id;
      if (part.function?.name) call.function.name += part.function.name;
      if (part.function?.arguments) call.function.arguments += part.function.arguments;
      this.calls.set(part.index, call);
    }
  }

  toolCalls(): ToolCall[] {
    return [...this.calls.entries()].sort((a, b) => a[0] - b[0]).map(([, c]) => c);
  }
}
