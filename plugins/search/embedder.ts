import { TesseraError } from '../../runtime/errors.js';
import { embedText, HASHED_EMBEDDER } from './hashed-embedder.js';
import type { IndexSettings } from './mappings.js';

/** Turns texts into vectors of the index's dimension. Both implementations pass one conformance suite. */
export interface Embedder {
  readonly name: string;
  embed(texts: readonly string[]): Promise<number[][]>;
}

export class EmbedderError extends TesseraError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('embedding_failed', 502, message, { details });
    this.name = 'EmbedderError';
  }
}

export function builtinEmbedder(dims: number): Embedder {
  return {
    name: HASHED_EMBEDDER,
    embed: async (texts) => texts.map((t) => Array.from(embedText(t, dims))),
  };
}

export interface OpenAiEmbedderOptions {
  baseUrl: string;
  model: string;
  apiKeyEnv?: string;
  batchSize: number;
  dims: number;
  /** Attempts per batch, the first included. @default 4 */
  attempts?: number;
  /** First backoff; doubles each retry. @default 200 */
  backoffMs?: number;
  /** Per request. @default 30000 */
  timeoutMs?: number;
}

/**
 * An OpenAI-compatible `POST {baseUrl}/embeddings` client: batches of `batchSize` texts, retries of
 * 429 and 5xx answers with exponential backoff (honouring `Retry-After`), a timeout per request,
 * and an `embedding_failed` error that says what the endpoint answered when it gives up.
 */
export function openAiEmbedder(options: OpenAiEmbedderOptions): Embedder {
  const url = `${options.baseUrl.replace(/\/+$/, '')}/embeddings`;
  const attempts = options.attempts ?? 4;
  const backoff = options.backoffMs ?? 200;
  const request = async (input: readonly string[]): Promise<number[][]> => {
    const key = options.apiKeyEnv ? process.env[options.apiKeyEnv] : undefined;
    let last = '';
    for (let attempt = 1; attempt <= attempts; attempt++) {
      let retryAfterMs = backoff * 2 ** (attempt - 1);
      try {
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
          body: JSON.stringify({ model: options.model, input }),
          signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
        });
        if (res.ok) {
          const body = (await res.json()) as { data?: Array<{ embedding: number[]; index: number }> };
          const data = body.data ?? [];
          if (data.length !== input.length) throw new EmbedderError(`${url} returned ${data.length} embeddings for ${input.length} inputs.`);
          const vectors = [...data].sort((a, b) => a.index - b.index).map((d) => d.embedding);
          const bad = vectors.find((v) => !Array.isArray(v) || v.length !== options.dims || v.some((x) => !Number.isFinite(x)));
          if (bad) throw new EmbedderError(`${url} returned vectors of ${Array.isArray(bad) ? bad.length : 'no'} dimensions; the index has vectorDimensions ${options.dims}.`);
          return vectors;
        }
        last = `HTTP ${res.status}: ${(await res.text()).slice(0, 200)}`;
        if (res.status !== 429 && res.status < 500) break;
        const header = Number(res.headers.get('retry-after'));
        if (Number.isFinite(header) && header >= 0) retryAfterMs = Math.min(header * 1000, 30_000);
      } catch (err) {
        if (err instanceof EmbedderError) throw err;
        last = (err as Error).message;
      }
      if (attempt < attempts) await new Promise((r) => setTimeout(r, retryAfterMs));
    }
    throw new EmbedderError(`The embedding endpoint ${url} failed: ${last}`, { url, model: options.model });
  };
  return {
    name: `openai:${options.model}`,
    async embed(texts) {
      const out: number[][] = [];
      for (let i = 0; i < texts.length; i += options.batchSize) out.push(...(await request(texts.slice(i, i + options.batchSize))));
      return out;
    },
  };
}

/** The embedder an index's settings name, or undefined when it does not embed. */
export function embedderFor(settings: IndexSettings): Embedder | undefined {
  const dims = settings.vectorDimensions;
  if (!settings.autoEmbed || dims === undefined) return undefined;
  const e = settings.embedder;
  return e.type === 'openai' ? openAiEmbedder({ ...e, dims }) : builtinEmbedder(dims);
}
