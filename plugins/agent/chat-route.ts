import { sse, z, type PluginContext, type ServerSentEvent } from 'tessera-runtime/plugin';
import type { Budgets } from './budget.js';
import { type AttemptRecord, type CallSummary, type Gateway } from './gateway.js';
import type { ChatRequest, ChatResult } from './llm-provider.js';
import { StreamAccumulator } from './openai-provider.js';
import type { AgentOptions } from './options.js';
import { redact } from './redact.js';
import { stripThinking, ThinkingFilter } from './thinking-filter.js';

const message = z.looseObject({
  role: z.enum(['system', 'user', 'assistant', 'tool', 'developer']),
  content: z.union([z.string(), z.null(), z.array(z.record(z.string(), z.unknown()))]).optional(),
  name: z.string().optional(),
  tool_calls: z
    .array(z.looseObject({ id: z.string(), type: z.literal('function'), function: z.looseObject({ name: z.string(), arguments: z.string() }) }))
    .optional(),
  tool_call_id: z.string().optional(),
});

/** OpenAI's chat-completions body; `model` names a tier, a task class or a model (docs/agent-api.md). */
export const chatBody = z.looseObject({
  model: z.string().min(1).max(200).default('auto'),
  messages: z.array(message).min(1).max(1000),
  max_tokens: z.number().int().min(1).optional(),
  max_completion_tokens: z.number().int().min(1).optional(),
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().min(0).max(1).optional(),
  stop: z.union([z.string(), z.array(z.string()).max(4)]).optional(),
  tools: z.array(z.unknown()).max(128).optional(),
  tool_choice: z.unknown().optional(),
  response_format: z.unknown().optional(),
  stream: z.boolean().default(false),
  /** Tessera: `false` skips the semantic cache for this call. @default true */
  cache: z.boolean().default(true),
});

type ChatBody = z.output<typeof chatBody>;

function toRequest(body: ChatBody): ChatRequest {
  const maxTokens = body.max_completion_tokens ?? body.max_tokens;
  return {
    model: body.model,
    messages: body.messages as ChatRequest['messages'],
    ...(maxTokens !== undefined ? { max_tokens: maxTokens } : {}),
    ...(body.temperature !== undefined ? { temperature: body.temperature } : {}),
    ...(body.top_p !== undefined ? { top_p: body.top_p } : {}),
    ...(body.stop !== undefined ? { stop: body.stop } : {}),
    ...(body.tools !== undefined ? { tools: body.tools } : {}),
    ...(body.tool_choice !== undefined ? { tool_choice: body.tool_choice } : {}),
    ...(body.response_format !== undefined ? { response_format: body.response_format } : {}),
  };
}

const tessera = (s: CallSummary) => ({
  callId: s.callId,
  requestedTier: s.requestedTier,
  tier: s.tier,
  cache: s.cache,
  costUsd: s.costUsd,
  latencyMs: s.latencyMs,
  budgetCut: s.budgetCut,
  attempts: s.attempts,
});

/** The assistant message as the client gets it: thinking removed when the budget says so. */
function shown(result: ChatResult, suppress: boolean): ChatResult['message'] {
  if (!suppress) return result.message;
  const { reasoning: _dropped, ...rest } = result.message;
  return { ...rest, content: rest.content === null ? null : stripThinking(rest.content).text };
}

/**
 * `POST /api/v1/chat/completions`: the gateway as an OpenAI-compatible endpoint (LiteLLM's proxy
 * does the same), whole or streamed; each answer carries a `tessera` block with the tier, the
 * attempts, the cache result, the cost and any budget cut.
 */
export function registerChatRoute(
  ctx: PluginContext<AgentOptions>,
  d: { gateway: Gateway; budgets: Budgets; secrets: (t: string) => Array<string | undefined> },
): void {
  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/chat/completions',
    permission: 'agent:submit',
    body: chatBody,
    bodyLimit: 8 * 1024 * 1024,
    tags: ['agent: gateway'],
    summary: 'Chat completions through the gateway: tier routing, failover, budgets and the semantic cache',
    async handler({ tenant, body, signal }) {
      const request = toRequest(body);
      const suppress = d.budgets.get(tenant).suppressThinkingStream;
      if (!body.stream) {
        const { result, summary } = await d.gateway.complete({ tenant, request, cache: body.cache, signal });
        return Response.json({
          id: `chatcmpl-${summary.callId}`,
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model: summary.model,
          choices: [{ index: 0, message: shown(result, suppress), finish_reason: result.finish_reason }],
          usage: summary.cache === 'exact' || summary.cache === 'semantic' ? summary.usage : result.usage,
          tessera: tessera(summary),
        });
      }
      const p = await d.gateway.prepare({ tenant, request, cache: body.cache });
      const hit = await d.gateway.lookup(tenant, p.key, body.cache);
      const created = Math.floor(Date.now() / 1000);
      const chunk = (model: string, delta: Record<string, unknown>, finish: string | null = null) => ({
        id: `chatcmpl-${p.callId}`,
        object: 'chat.completion.chunk',
        created,
        model,
        choices: [{ index: 0, delta, finish_reason: finish }],
      });
      if (hit) {
        const { result, summary } = await d.gateway.fromCache(tenant, p, hit);
        const m = shown(result, suppress);
        async function* replay(): AsyncIterable<ServerSentEvent> {
          yield {
            data: chunk(summary.model, {
              role: 'assistant',
              content: m.content ?? '',
              ...(m.tool_calls ? { tool_calls: m.tool_calls.map((c, index) => ({ index, ...c })) } : {}),
            }),
          };
          yield { data: chunk(summary.model, {}, result.finish_reason) };
          yield {
            data: {
              id: `chatcmpl-${p.callId}`,
              object: 'chat.completion.chunk',
              created,
              model: summary.model,
              choices: [],
              usage: summary.usage,
              tessera: tessera(summary),
            },
          };
          yield { data: '[DONE]' };
        }
        return sse(replay(), { heartbeatMs: 0 });
      }
      const attempts: AttemptRecord[] = [];
      let open;
      try {
        open = await d.gateway.openStream(tenant, p, attempts, signal);
      } catch (err) {
        await d.gateway.failed(tenant, p, attempts, err);
        throw err;
      }
      const { model, first, rest } = open;
      async function* relay(): AsyncIterable<ServerSentEvent> {
        const acc = new StreamAccumulator();
        const filter = suppress ? new ThinkingFilter() : undefined;
        let sentRole = false;
        let step = first;
        try {
          while (!step.done) {
            const delta = step.value;
            acc.add(delta);
            const out: Record<string, unknown> = {};
            if (!sentRole) {
              out.role = 'assistant';
              sentRole = true;
            }
            if (delta.content) {
              const text = filter ? filter.push(delta.content) : delta.content;
              if (text) out.content = text;
            }
            if (delta.reasoning && !suppress) out.reasoning = delta.reasoning;
            if (delta.tool_calls) out.tool_calls = delta.tool_calls;
            if (delta.finish_reason && filter) {
              const tail = filter.end();
              if (tail) out.content = `${(out.content as string | undefined) ?? ''}${tail}`;
            }
            if (Object.keys(out).length > 0 || delta.finish_reason) yield { data: chunk(model.id, out, delta.finish_reason ?? null) };
            step = await rest.next();
          }
        } catch (err) {
          const messageText = redact((err as Error).message, d.secrets(tenant));
          d.gateway.streamBroke(tenant, model, `mid-stream: ${messageText}`);
          await d.gateway.failed(tenant, p, attempts, err);
          yield { data: { error: { message: `The provider failed mid-stream: ${messageText}`, code: 'stream_interrupted' } } };
          yield { data: '[DONE]' };
          return;
        }
        const tail = filter?.end();
        if (tail) yield { data: chunk(model.id, { content: tail }) };
        const usage = acc.usage ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
        const summary = await d.gateway.finish(tenant, p, model, usage, attempts, body.cache ? 'miss' : 'off', 'ok');
        if (body.cache && ctx.config.cache.enabled) {
          const toolCalls = acc.toolCalls();
          const result: ChatResult = {
            id: p.callId,
            model: model.id,
            message: {
              role: 'assistant',
              content: acc.content,
              ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
              ...(acc.reasoning ? { reasoning: acc.reasoning } : {}),
            },
            finish_reason: acc.finishReason,
            usage,
          };
          await d.gateway.store(tenant, p.key, model.id, result);
        }
        yield {
          data: { id: `chatcmpl-${p.callId}`, object: 'chat.completion.chunk', created, model: model.id, choices: [], usage, tessera: tessera(summary) },
        };
        yield { data: '[DONE]' };
      }
      return sse(relay(), { signal, heartbeatMs: 0 });
    },
  });
}
