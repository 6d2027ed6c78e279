/** A chat message in OpenAI's shape (what every provider behind the gateway speaks). */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool' | 'developer';
  content: string | null | Array<Record<string, unknown>>;
  name?: string;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  [extra: string]: unknown;
}

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  max_tokens?: number;
  temperature?: number;
  top_p?: number;
  stop?: string | string[];
  tools?: unknown[];
  tool_choice?: unknown;
  response_format?: unknown;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** Reasoning tokens the provider reported inside `completion_tokens`, when it does. */
  reasoning_tokens?: number;
}

export interface ChatResult {
  id: string;
  model: string;
  message: { role: 'assistant'; content: string | null; tool_calls?: ToolCall[]; reasoning?: string };
  finish_reason: string | null;
  usage: Usage;
}

/** One streamed delta, already parsed. */
export interface ChatDelta {
  content?: string;
  reasoning?: string;
  /** Fragments of tool calls by index, as the provider sent them. */
  tool_calls?: Array<{ index: number; id?: string; type?: 'function'; function?: { name?: string; arguments?: string } }>;
  finish_reason?: string | null;
  usage?: Usage;
}

export type FailureKind = 'rate_limited' | 'server_error' | 'timeout' | 'unreachable' | 'malformed' | 'rejected';

/**
 * A provider call that failed. `retryable` failures (429, 5xx, timeouts, an unreachable server, an
 * answer that is not a chat completion) move the router to the next candidate; the others (400,
 * 401, 403, 404, 422) would fail the same way on any model and end the call.
 */
export class ProviderFailure extends Error {
  constructor(
    readonly kind: FailureKind,
    message: string,
    readonly status?: number,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'ProviderFailure';
  }

  get retryable(): boolean {
    return this.kind !== 'rejected';
  }
}

export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

/**
 * What the gateway calls: a chat-completions endpoint, whole or streamed. Implementations throw
 * `ProviderFailure` for every failure, so routing treats them alike; `test/plugins/agent/
 * llm-provider-conformance.ts` is the suite each implementation passes.
 */
export interface LlmProvider {
  readonly name: string;
  complete(request: ChatRequest, options?: CallOptions): Promise<ChatResult>;
  /** Deltas in order; the last carries `usage` when the provider reports it. */
  stream(request: ChatRequest, options?: CallOptions): AsyncIterable<ChatDelta>;
}
