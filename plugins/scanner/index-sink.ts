import type { BatchWriter, FieldMappingSpec, SearchService } from '../search/index.js';

/** What the index said about one flushed batch. */
export interface SinkResult {
  indexed: number;
  deleted: number;
  /** Documents the index refused, by id. */
  errors: Array<{ id?: string; code: string; message: string }>;
}

/** The index a scan feeds: in-process through the search service, or a remote engine over HTTP. */
export interface IndexSink {
  /** `in-process`, or the remote engine's URL. */
  readonly destination: string;
  /** Creates the target index on first use; an existing one is used as it is. */
  ensureIndex(): Promise<void>;
  /** Whether the index already holds `id`, where that can be told cheaply (in-process); undefined otherwise. */
  has(id: string): boolean | undefined;
  upsert(document: Record<string, unknown>): Promise<void>;
  delete(id: string): Promise<void>;
  /** Applies what is buffered; resolves once the index has acknowledged it. */
  flush(): Promise<SinkResult>;
}

export interface IndexShape {
  mappings: Record<string, FieldMappingSpec>;
  /** File and database scans create their index with dynamic mapping: their fields are not known up front. */
  dynamic: boolean;
}

/** Feeds an index of this runtime through the search plugin's service and its batched writer. */
export class InProcessSink implements IndexSink {
  readonly destination = 'in-process';
  private readonly search: SearchService;
  private readonly tenant: string;
  private readonly index: string;
  private readonly shape: IndexShape;
  private readonly batchDocs: number;
  private writer: BatchWriter | undefined;
  /** Upserted ids since the last flush, by position, to name refused documents. */
  private ids: Array<string | undefined> = [];

  constructor(search: SearchService, tenant: string, index: string, shape: IndexShape, batchDocs: number) {
    this.search = search;
    this.tenant = tenant;
    this.index = index;
    this.shape = shape;
    this.batchDocs = batchDocs;
  }

  async ensureIndex(): Promise<void> {
    await this.search.ensure(this.tenant, { name: this.index, mappings: this.shape.mappings, settings: { dynamic: this.shape.dynamic } });
  }

  has(id: string): boolean {
    return this.search.getDocument(this.tenant, this.index, id) !== undefined;
  }

  private get open(): BatchWriter {
    this.writer ??= this.search.writer(this.tenant, this.index, { batchDocs: this.batchDocs });
    return this.writer;
  }

  async upsert(document: Record<string, unknown>): Promise<void> {
    this.ids.push(typeof document.id === 'string' ? document.id : undefined);
    await this.open.upsert(document);
  }

  async delete(id: string): Promise<void> {
    await this.open.delete(id);
  }

  async flush(): Promise<SinkResult> {
    const ids = this.ids;
    this.ids = [];
    if (!this.writer) return { indexed: 0, deleted: 0, errors: [] };
    const { written, deleted } = await this.writer.flush();
    return {
      indexed: written.indexed,
      deleted,
      errors: written.errors.map((e) => ({ ...((e.id ?? ids[e.position]) ? { id: e.id ?? ids[e.position] } : {}), code: e.code, message: e.message })),
    };
  }
}
