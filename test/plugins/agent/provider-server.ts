import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A model of OpenRouter's `GET /api/v1/models` list: prices are USD per token, as strings. */
export interface ListedModel {
  id: string;
  name?: string;
  context_length?: number;
  pricing?: { prompt: string; completion: string };
}

/** What the chat-completions endpoint answers for one call. */
export interface ChatScript {
  /** A failure instead of an answer: an HTTP status, a body that is not JSON, no answer at all, or a stream cut after its first chunk. */
  fail?: number | 'garbage' | 'hang' | 'cut-stream';
  content?: string;
  reasoning?: string;
  toolCalls?: Array<{ id: string; name: string; arguments: string }>;
  usage?: { prompt: number; completion: number; reasoning?: number };
  delayMs?: number;
}

export interface ModelListServer {
  /** `http://127.0.0.1:<port>/api/v1` */
  baseUrl: string;
  models: ListedModel[];
  /** Scripted failures for the next requests: a status, `garbage` (not JSON) or `hang`. */
  failNext: Array<number | 'garbage' | 'hang'>;
  requests: Array<{ path: string; authorization: string | undefined }>;
  /** Scripted answers per model id, consumed in order; a model without one answers `defaultAnswer`. */
  scripts: Map<string, ChatScript[]>;
  /** Every chat call received: the model and the body. */
  chats: Array<{ model: string; body: any }>;
  defaultAnswer(model: string, body: any): ChatScript;
  close(): Promise<void>;
}

/** A local server speaking OpenRouter's models list and OpenAI's chat completions (no provider is reachable here). */
export async function startProviderServer(models: ListedModel[] = []): Promise<ModelListServer> {
  const state: Omit<ModelListServer, 'baseUrl' | 'close'> = {
    models,
    failNext: [],
    requests: [],
    scripts: new Map(),
    chats: [],
    defaultAnswer: (model, body) => ({ content: `answer from ${model} to: ${body.messages.at(-1).content}`, usage: { prompt: 12, completion: 8 } }),
  };
  const server: Server = createServer((req: IncomingMessage, res) => {
    state.requests.push({ path: req.url ?? '', authorization: req.headers.authorization });
    if (req.method === 'POST' && req.url === '/api/v1/chat/completions') {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
      req.on('end', () => void answerChat(state, JSON.parse(raw), res));
      return;
    }
    if (req.method !== 'GET' || req.url !== '/api/v1/models') {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"Not Found","code":404}}');
      return;
    }
    const failure = state.failNext.shift();
    if (failure === 'hang') return;
    if (failure === 'garbage') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('<html>upstream proxy error</html>');
      return;
    }
    if (typeof failure === 'number') {
      res.writeHead(failure, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'Provider returned error', code: failure } }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: state.models }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    baseUrl: `http://127.0.0.1:${port}/api/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

/** USD per 1M tokens to OpenRouter's per-token string. */
export const perToken = (per1M: number): string => (per1M / 1e6).toFixed(12).replace(/0+$/, '').replace(/\.$/, '');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** OpenAI's chat-completions protocol: a whole `chat.completion`, or `chat.completion.chunk` SSE lines then `data: [DONE]`. */
async function answerChat(state: Omit<ModelListServer, 'baseUrl' | 'close'>, body: any, res: import('node:http').ServerResponse): Promise<void> {
  const model = String(body.model);
  state.chats.push({ model, body });
  const script = state.scripts.get(model)?.shift() ?? state.defaultAnswer(model, body);
  if (script.delayMs) await sleep(script.delayMs);
  if (script.fail === 'hang') return;
  if (script.fail === 'garbage') {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"choices": "not what you think"');
    return;
  }
  if (typeof script.fail === 'number') {
    res.writeHead(script.fail, { 'content-type': 'application/json', ...(script.fail === 429 ? { 'retry-after': '1' } : {}) });
    res.end(JSON.stringify({ error: { message: script.fail === 429 ? 'Rate limit exceeded' : 'Upstream error', code: script.fail } }));
    return;
  }
  const usage = {
    prompt_tokens: script.usage?.prompt ?? 12,
    completion_tokens: script.usage?.completion ?? 8,
    total_tokens: (script.usage?.prompt ?? 12) + (script.usage?.completion ?? 8),
    ...(script.usage?.reasoning !== undefined ? { completion_tokens_details: { reasoning_tokens: script.usage.reasoning } } : {}),
  };
  const toolCalls = script.toolCalls?.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
  const id = `chatcmpl-${Math.random().toString(36).slice(2)}`;
  const created = Math.floor(Date.now() / 1000);
  if (!body.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id,
        object: 'chat.completion',
        created,
        model,
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: script.content ?? null,
              ...(script.reasoning ? { reasoning: script.reasoning } : {}),
              ...(toolCalls ? { tool_calls: toolCalls } : {}),
            },
            finish_reason: toolCalls ? 'tool_calls' : 'stop',
          },
        ],
        usage,
      }),
    );
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const send = (delta: Record<string, unknown>, finish: string | null = null) =>
    res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`);
  send({ role: 'assistant', content: '' });
  if (script.reasoning) for (const piece of script.reasoning.match(/.{1,7}/gs) ?? []) send({ reasoning: piece });
  const pieces = (script.content ?? '').match(/.{1,5}/gs) ?? [];
  if (script.fail === 'cut-stream') {
    send({ content: pieces[0] ?? 'x' });
    // Let the first chunk reach the client before the connection drops.
    await sleep(100);
    res.destroy();
    return;
  }
  for (const piece of pieces) send({ content: piece });
  for (const [index, call] of (toolCalls ?? []).entries()) {
    send({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] });
    for (const frag of call.function.arguments.match(/.{1,4}/gs) ?? []) send({ tool_calls: [{ index, function: { arguments: frag } }] });
  }
  send({}, toolCalls ? 'tool_calls' : 'stop');
  if (body.stream_options?.include_usage) res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage })}\n\n`);
  res.end('data: [DONE]\n\n');
}
