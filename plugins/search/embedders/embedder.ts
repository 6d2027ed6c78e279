import { TesseraError } from 'tessera-runtime/plugin';
import { CORPUS_LSA_V1, embedCorpusLsa } from './corpus-lsa.js';
import { embedText, HASHED_EMBEDDER } from './hashed-embedder.js';
import type { EmbeddingCorpus } from './embedding-corpus.js';
import { embedDocument, embedQuery, emptyCorpus, HASHED_NGRAMS_V2 } from './hashed-ngrams-v2.js';
import type { BuiltinModel, EmbedderSetting, EmbeddingSettings } from './embedder-setting.js';

/** Turns texts into vectors of the index's dimension. Every implementation passes one conformance suite. */
export interface Embedder {
  readonly name: string;
  /** Vectors of documents, to store. */
  embed(texts: readonly string[]): Promise<number[][]>;
  /** A query's vector, when the embedder treats queries differently from documents; else `embed`'s. */
  embedQuery?(text: string): Promise<number[]>;
}

/**
 * The built-in embedders whose vectors only restate the words of a text (hashed features): their
 * semantic side is BM25's evidence with hashing noise, so hybrid at its default ratio does not let
 * them move keyword's ranking (fusion.ts).
 */
export function isLexicalEmbedder(name: string): boolean {
  return name === HASHED_EMBEDDER || name === HASHED_NGRAMS_V2;
}
/** The built-in embedders' own dimension: what `autoEmbed` without `vectorDimensions` embeds into. */
export const BUILTIN_DIMENSIONS = 384;

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

/** A remote embedder the operator defines in the manifest (`plugins.search.options.embedders`). */
export interface RemoteEmbedderConfig {
  type: 'openai';
  baseUrl: string;
  model: string;
  apiKeyEnv?: string;
  /** When set, indexes naming this embedder must have this `vectorDimensions`. */
  dimensions?: number;
  batchSize?: number;
  timeoutMs?: number;
}

/** What an embedder needs of an HTTP client; the plugin passes the runtime's outbound client. */
export type EmbedderFetch = (
  url: string,
  init: { method: 'POST'; headers: Record<string, string>; body: string; timeoutMs: number },
) => Promise<{ status: number; headers: { get(name: string): string | null }; text(): Promise<string> }>;

/** `fetch` with a timeout: for an embedder used outside the plugin (tests, benchmarks). */
export const globalFetch: EmbedderFetch = (url, { timeoutMs, ...init }) => fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });

export interface OpenAiEmbedderOptions {
  /** How errors name it: the manifest's name. @default "openai:<model>" */
  name?: string;
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
  fetch?: EmbedderFetch;
  /** Told what the endpoint answered when it fails; the API caller gets the status only. */
  onUpstreamError?: (detail: { embedder: string; status?: number; error?: string; body?: string }) => void;
}

/** What a failed call says to the API caller: the status, or how the connection failed, never the body. */
function failureOf(err: unknown): string {
  const code = (err as { code?: unknown } | undefined)?.code;
  if (code === 'upstream_timeout' || (err as Error | undefined)?.name === 'TimeoutError') return 'timed out';
  if (code === 'upstream_too_large') return 'answer too large';
  return 'unreachable';
}

/**
 * An OpenAI-compatible `POST {baseUrl}/embeddings` client: batches of `batchSize` texts, retries of
 * 429, 5xx and unreachable endpoints with exponential backoff (honouring `Retry-After`), a timeout
 * per request, and an `embedding_failed` error naming the embedder and the HTTP status (or
 * "unreachable") when it gives up. What the endpoint answered goes to `onUpstreamError` (the log),
 * not to the caller: an error message must not relay another server's body.
 */
export function openAiEmbedder(options: OpenAiEmbedderOptions): Embedder {
  const url = `${options.baseUrl.replace(/\/+$/, '')}/embeddings`;
  const name = options.name ?? `openai:${options.model}`;
  const attempts = options.attempts ?? 4;
  const backoff = options.backoffMs ?? 200;
  const call = options.fetch ?? globalFetch;
  const request = async (input: readonly string[]): Promise<number[][]> => {
    const key = options.apiKeyEnv ? process.env[options.apiKeyEnv] : undefined;
    let last = '';
    for (let attempt = 1; attempt <= attempts; attempt++) {
      let retryAfterMs = backoff * 2 ** (attempt - 1);
      try {
        const res = await call(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
          body: JSON.stringify({ model: options.model, input }),
          timeoutMs: options.timeoutMs ?? 30_000,
        });
        const text = await res.text();
        if (res.status >= 200 && res.status < 300) {
          let body: { data?: Array<{ embedding: number[]; index: number }> };
          try {
            body = JSON.parse(text) as typeof body;
          } catch {
            options.onUpstreamError?.({ embedder: name, status: res.status, body: text.slice(0, 2000) });
            throw new EmbedderError(`Embedder "${name}" answered HTTP ${res.status} with a body that is not JSON.`, { embedder: name, status: res.status });
          }
          const data = Array.isArray(body?.data) ? body.data : [];
          if (data.length !== input.length)
            throw new EmbedderError(`Embedder "${name}" returned ${data.length} embeddings for ${input.length} inputs.`, { embedder: name });
          const vectors = [...data].sort((a, b) => a.index - b.index).map((d) => d.embedding);
          const bad = vectors.find((v) => !Array.isArray(v) || v.length !== options.dims || v.some((x) => !Number.isFinite(x)));
          if (bad)
            throw new EmbedderError(
              `Embedder "${name}" returned vectors of ${Array.isArray(bad) ? bad.length : 'no'} dimensions; the index has vectorDimensions ${options.dims}.`,
              { embedder: name },
            );
          return vectors;
        }
        options.onUpstreamError?.({ embedder: name, status: res.status, body: text.slice(0, 2000) });
        last = `HTTP ${res.status}`;
        if (res.status !== 429 && res.status < 500) break;
        const header = Number(res.headers.get('retry-after') ?? Number.NaN);
        if (Number.isFinite(header) && header >= 0) retryAfterMs = Math.min(header * 1000, 30_000);
      } catch (err) {
        if (err instanceof EmbedderError) throw err;
        options.onUpstreamError?.({ embedder: name, error: (err as Error)?.message ?? String(err) });
        last = failureOf(err);
      }
      if (attempt < attempts) await new Promise((r) => setTimeout(r, retryAfterMs));
    }
    throw new EmbedderError(`Embedder "${name}" failed: ${last}.`, { embedder: name, upstream: last });
  };
  return {
    name,
    async embed(texts) {
      const out: number[][] = [];
      for (let i = 0; i < texts.length; i += options.batchSize) out.push(...(await request(texts.slice(i, i + options.batchSize))));
      return out;
    },
  };
}

export class EmbedderNotAllowedError extends TesseraError {
  constructor(message: string, details: Record<string, unknown>) {
    super('embedder_not_allowed', 400, message, { details });
    this.name = 'EmbedderNotAllowedError';
  }
}

/**
 * The remote embedders of this deployment, by name, as the operator wrote them in the manifest.
 * Their endpoints are trusted by being written there; an index only names one.
 */
export class EmbedderCatalog {
  constructor(
    private readonly configs: Readonly<Record<string, RemoteEmbedderConfig>> = {},
    private readonly deps: { fetch?: EmbedderFetch; onUpstreamError?: OpenAiEmbedderOptions['onUpstreamError'] } = {},
  ) {}

  names(): string[] {
    return Object.keys(this.configs).sort();
  }

  has(name: string): boolean {
    return Object.hasOwn(this.configs, name);
  }

  /**
   * The size of the vectors the embedder `settings.embedder` makes, when it is known without
   * calling it: the built-in ones' 384, or a manifest embedder's `dimensions`.
   */
  dimensionsOf(settings: { embedder: EmbedderSetting }): number | undefined {
    const e = settings.embedder as unknown;
    if (typeof e === 'string') return this.has(e) ? this.configs[e]!.dimensions : undefined;
    return e && typeof e === 'object' && (e as { type?: unknown }).type === 'builtin' ? BUILTIN_DIMENSIONS : undefined;
  }

  /** Throws `embedder_not_allowed` unless `settings.embedder` is the built-in or a name defined here. */
  check(settings: Pick<EmbeddingSettings, 'embedder' | 'vectorDimensions'>): void {
    const e = settings.embedder as unknown;
    if (typeof e === 'string') {
      if (!this.has(e)) {
        const names = this.names();
        throw new EmbedderNotAllowedError(
          `settings.embedder: no embedder is named "${e}" in this deployment; ${names.length > 0 ? `defined: ${names.map((n) => `"${n}"`).join(', ')}, or` : 'use'} {"type": "builtin"} (the operator defines remote embedders in plugins.search.options.embedders).`,
          { path: 'settings.embedder', embedder: e, defined: names },
        );
      }
      const dims = this.configs[e]!.dimensions;
      if (dims !== undefined && settings.vectorDimensions !== undefined && dims !== settings.vectorDimensions) {
        throw new EmbedderNotAllowedError(
          `settings.embedder: "${e}" makes vectors of ${dims} dimensions; the index has vectorDimensions ${settings.vectorDimensions}.`,
          { path: 'settings.embedder', embedder: e, dimensions: dims },
        );
      }
      return;
    }
    if (e && typeof e === 'object' && (e as { type?: unknown }).type !== 'builtin') {
      throw new EmbedderNotAllowedError(
        'settings.embedder: an index names a remote embedder the operator defined (plugins.search.options.embedders), it does not carry a baseUrl or apiKeyEnv itself; use {"embedder": "<name>"} or {"type": "builtin"}.',
        { path: 'settings.embedder' },
      );
    }
  }

  /** The embedder `name` for an index of `dims` dimensions; a name the manifest no longer defines fails at use. */
  named(name: string, dims: number): Embedder {
    const config = this.has(name) ? this.configs[name]! : undefined;
    if (!config) {
      return {
        name,
        embed: () =>
          Promise.reject(
            new EmbedderError(`Embedder "${name}" is not defined in this deployment's manifest (plugins.search.options.embedders).`, { embedder: name }),
          ),
      };
    }
    return this.remote(name, config, dims);
  }

  /** An index stored with an inline endpoint before embedders were named: it keeps working. */
  inline(config: RemoteEmbedderConfig, dims: number): Embedder {
    return this.remote(`openai:${config.model}`, config, dims);
  }

  private remote(name: string, config: RemoteEmbedderConfig, dims: number): Embedder {
    return openAiEmbedder({
      name,
      baseUrl: config.baseUrl,
      model: config.model,
      ...(config.apiKeyEnv !== undefined ? { apiKeyEnv: config.apiKeyEnv } : {}),
      batchSize: config.batchSize ?? 64,
      dims,
      ...(config.timeoutMs !== undefined ? { timeoutMs: config.timeoutMs } : {}),
      ...(this.deps.fetch ? { fetch: this.deps.fetch } : {}),
      ...(this.deps.onUpstreamError ? { onUpstreamError: this.deps.onUpstreamError } : {}),
    });
  }
}

/**
 * The embedder an index's settings name, or undefined when it does not embed. A builtin setting
 * stored without `model` predates the versions and means `hashed-ngrams-v1`: its vectors were made
 * by v1, so its queries must be too.
 */
export function embedderFor(settings: EmbeddingSettings, corpus: EmbeddingCorpus | undefined, catalog: EmbedderCatalog): Embedder | undefined {
  const dims = settings.vectorDimensions;
  if (!settings.autoEmbed || dims === undefined) return undefined;
  const e = settings.embedder;
  if (typeof e === 'string') return catalog.named(e, dims);
  return e.type === 'openai' ? catalog.inline(e, dims) : builtinEmbedder(dims, e.model ?? HASHED_EMBEDDER, corpus);
}
