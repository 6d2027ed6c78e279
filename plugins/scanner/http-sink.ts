import { isTesseraError, type OutboundClient, type OutboundRequestInit } from 'tessera-runtime/plugin';
import { errors } from './errors.js';
import type { IndexShape, IndexSink, SinkResult } from './index-sink.js';

export interface HttpSinkOptions {
  /** The search engine: `GET/POST {engineUrl}/v1/indexes` create the index on first use. */
  engineUrl: string;
  /** Where `POST /v1/bulk` is served; the engine itself unless the bulk indexer runs on its own port. */
  bulkUrl: string;
  index: string;
  shape: IndexShape;
  batchDocs: number;
  outbound: OutboundClient;
  allow: OutboundRequestInit['allow'];
  apiKey?: string;
  signal?: AbortSignal;
}

type Op = { kind: 'index'; id: string; doc: Record<string, unknown> } | { kind: 'delete'; id: string };

interface BulkAnswer {
  indexed?: number;
  deleted?: number;
  errors?: Array<{ line: number; id?: string; code: string; message: string }>;
}

/**
 * Feeds an index of another Tessera over HTTP, through its bulk API (`POST /v1/bulk`, NDJSON action
 * and document lines): the way a scanner running in its own process reaches the engine.
 */
export class HttpSink implements IndexSink {
  readonly destination: string;
  private readonly options: HttpSinkOptions;
  private ops: Op[] = [];
  private totals: SinkResult = { indexed: 0, deleted: 0, errors: [] };

  constructor(options: HttpSinkOptions) {
    this.options = options;
    this.destination = options.engineUrl;
  }

  private async call(url: string, init: { method: string; body?: string; contentType?: string }) {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (init.contentType) headers['content-type'] = init.contentType;
    if (this.options.apiKey) headers['x-api-key'] = this.options.apiKey;
    try {
      return await this.options.outbound.fetch(url, {
        method: init.method,
        headers,
        ...(init.body !== undefined ? { body: init.body } : {}),
        allow: this.options.allow,
        ...(this.options.signal ? { signal: this.options.signal } : {}),
        maxBytes: 64 * 1024 * 1024,
      });
    } catch (err) {
      if (isTesseraError(err) && (err.code === 'upstream_unreachable' || err.code === 'upstream_timeout'))
        throw errors.source_unreachable({ reason: err.message }, { cause: err });
      throw err;
    }
  }

  private async reject(url: string, res: { status: number; text(): Promise<string> }): Promise<never> {
    const body = await res.text().catch(() => '');
    let reason = body.slice(0, 300);
    try {
      const parsed = JSON.parse(body) as { error?: { code?: string; message?: string } };
      if (parsed.error) reason = `${parsed.error.code}: ${parsed.error.message}`;
    } catch {
      // Not JSON: the start of the body says enough.
    }
    throw errors.engine_rejected({ url, status: res.status, reason });
  }

  async ensureIndex(): Promise<void> {
    const base = this.options.engineUrl.replace(/\/+$/, '');
    const url = `${base}/v1/indexes/${encodeURIComponent(this.options.index)}`;
    const found = await this.call(url, { method: 'GET' });
    if (found.status === 200) {
      await found.discard();
      return;
    }
    if (found.status !== 404) await this.reject(url, found);
    await found.discard();
    const body = JSON.stringify({ name: this.options.index, mappings: this.options.shape.mappings, settings: { dynamic: this.options.shape.dynamic } });
    const created = await this.call(`${base}/v1/indexes`, { method: 'POST', body, contentType: 'application/json' });
    // 409: another writer created it meanwhile, which is just as good.
    if (created.status !== 200 && created.status !== 201 && created.status !== 409) await this.reject(`${base}/v1/indexes`, created);
    await created.discard();
  }

  has(): undefined {
    return undefined;
  }

  async upsert(document: Record<string, unknown>): Promise<void> {
    this.ops.push({ kind: 'index', id: String(document.id), doc: document });
    if (this.ops.length >= this.options.batchDocs) await this.send();
  }

  async delete(id: string): Promise<void> {
    this.ops.push({ kind: 'delete', id });
    if (this.ops.length >= this.options.batchDocs) await this.send();
  }

  async flush(): Promise<SinkResult> {
    await this.send();
    const totals = this.totals;
    this.totals = { indexed: 0, deleted: 0, errors: [] };
    return totals;
  }

  private async send(): Promise<void> {
    const ops = this.ops;
    this.ops = [];
    if (ops.length === 0) return;
    const lines: string[] = [];
    const opOfLine = new Map<number, Op>();
    for (const op of ops) {
      lines.push(JSON.stringify({ [op.kind]: { _index: this.options.index, _id: op.id } }));
      opOfLine.set(lines.length, op);
      if (op.kind === 'index') {
        lines.push(JSON.stringify(op.doc));
        opOfLine.set(lines.length, op);
      }
    }
    const url = `${this.options.bulkUrl.replace(/\/+$/, '')}/v1/bulk`;
    const res = await this.call(url, { method: 'POST', body: lines.join('\n') + '\n', contentType: 'application/x-ndjson' });
    if (res.status !== 200) await this.reject(url, res);
    const answer = (await res.json()) as BulkAnswer;
    this.totals.indexed += answer.indexed ?? 0;
    this.totals.deleted += answer.deleted ?? 0;
    for (const e of answer.errors ?? []) {
      const op = opOfLine.get(e.line);
      // Removing what the index never held (a file it had refused) is not a failure of the scan.
      if (op?.kind === 'delete' && e.code === 'document_not_found') continue;
      this.totals.errors.push({ ...(op ? { id: op.id } : e.id ? { id: e.id } : {}), code: e.code, message: e.message });
    }
  }
}
