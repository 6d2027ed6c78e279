import { TesseraError } from 'tessera/plugin';
import { CORPUS_LSA_V1, embedCorpusLsa } from './corpus-lsa.js';
import { embedText, HASHED_EMBEDDER } from './hashed-embedder.js';
import { embedDocument, embedQuery, emptyCorpus, HASHED_NGRAMS_V2, type EmbeddingCorpus } from './hashed-ngrams-v2.js';
import type { IndexSettings } from './mappings.js';

/** Turns texts into vectors of the index's dimension. Every implementation passes one conformance suite. */
export interface Embedder {
  readonly name: string;
  /** Vectors of documents, to store. */
  embed(texts: readonly string[]): Promise<number[][]>;
  /** A query's vector, when the embedder treats queries differently from documents; else `embed`'s. */
  embedQuery?(text: string): Promise<number[]>;
}

export const builtinModels = [HASHED_EMBEDDER, HASHED_NGRAMS_V2, CORPUS_LSA_V1] as const;
export type BuiltinModel = (typeof builtinModels)[number];
/** What a new index, or a PATCH to `{type: "builtin"}`, gets. */
export const LATEST_BUILTIN_MODEL: BuiltinModel = HASHED_NGRAMS_V2;

export class EmbedderError extends TesseraError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('embedding_failed', 502, message, { details });
    this.name = 'EmbedderError';
  }
}

/**
 * The built-in embedder `model` (hashed-embedder.ts, hashed-ngrams-v2.ts, corpus-lsa.ts). v2 reads
 * the index's analyzers, and at query time its term statistics, from `corpus`; corpus-lsa-v1 its
 * trained term model, and embeds as v2 until the index has one.
 */
export function builtinEmbedder(dims: number, model: BuiltinModel = HASHED_EMBEDDER, corpus: EmbeddingCorpus = emptyCorpus): Embedder {
  if (model === HASHED_EMBEDDER) return { name: model, embed: async (texts) => texts.map((t) => Array.from(embedText(t, dims))) };
  const trained = corpus.model;
  if (model === CORPUS_LSA_V1 && trained && trained.dims === dims) {
    return {
      name: model,
      embed: async (texts) => texts.map((t) => Array.from(embedCorpusLsa(trained, t, corpus.analyzers))),
      embedQuery: async (text) => Array.from(embedCorpusLsa(trained, text, corpus.analyzers)),
    };
  }
  return {
    name: HASHED_NGRAMS_V2,
    embed: async (texts) => texts.map((t) => Array.from(embedDocument(t, dims, corpus.analyzers))),
    embedQuery: async (text) => Array.from(embedQuery(text, dims, corpus)),
  };
}

/** The vector a query's `q` is searched with. */
export async function embedQueryText(embedder: Embedder, text: string): Promise<number[]> {
  return embedder.embedQuery ? embedder.embedQuery(text) : (await embedder.embed([text]))[0]!;
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

/**
 * The embedder an index's settings name, or undefined when it does not embed. A builtin setting
 * stored without `model` predates the versions and means `hashed-ngrams-v1`: its vectors were made
 * by v1, so its queries must be too.
 */
export function embedderFor(settings: IndexSettings, corpus?: EmbeddingCorpus): Embedder | undefined {
  const dims = settings.vectorDimensions;
  if (!settings.autoEmbed || dims === undefined) return undefined;
  const e = settings.embedder;
  return e.type === 'openai' ? openAiEmbedder({ ...e, dims }) : builtinEmbedder(dims, e.model ?? HASHED_EMBEDDER, corpus);
}
