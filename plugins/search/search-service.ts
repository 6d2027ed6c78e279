import type { KernelRunner } from 'tessera-runtime/kernels';
import { isTesseraError, validate } from 'tessera-runtime/plugin';
import { has } from './index/bitset.js';
import { parseCreateIndex } from './index/mappings.js';
import { runSearch, searchQuerySchema } from './search/search.js';
import { describe, type SearchEngine } from './index/search-engine.js';
import { visualTerms } from './image/visual-terms.js';
import type { BatchWriter, IndexInfo, IndexSpec, SearchRequest, SearchResponse, SearchService, WriteResult } from './service.js';

/** The engine behind the narrow interface dependants use (see service.ts). */
export function createSearchService(engine: SearchEngine, kernels: () => KernelRunner): SearchService {
  const info = (tenant: string, name: string): IndexInfo | undefined =>
    engine.has(tenant, name) ? (describe(engine.get(tenant, name), { sizes: false }) as IndexInfo) : undefined;
  const service: SearchService = {
    indexes: (tenant) => engine.list(tenant, { sizes: false }) as IndexInfo[],
    get: info,
    create: async (tenant, spec) => (await engine.create(tenant, parseCreateIndex(spec))) as IndexInfo,
    async ensure(tenant, spec: IndexSpec) {
      const existing = info(tenant, spec.name);
      if (existing) return existing;
      try {
        return (await engine.create(tenant, parseCreateIndex(spec))) as IndexInfo;
      } catch (err) {
        // Another caller created it meanwhile: theirs stands.
        if (isTesseraError(err) && err.code === 'index_exists') return info(tenant, spec.name)!;
        throw err;
      }
    },
    async drop(tenant, name) {
      if (!engine.has(tenant, name)) return false;
      await engine.delete(tenant, name);
      return true;
    },
    async search(tenant, name, query: SearchRequest): Promise<SearchResponse> {
      const body = validate(searchQuerySchema, query, 'search query');
      const { total, tookMs, hits } = await runSearch(engine.get(tenant, name), kernels(), body, { expanders: engine.expanders });
      return { total, tookMs, hits: hits as SearchResponse['hits'] };
    },
    upsert: (tenant, name, documents) => engine.get(tenant, name).upsert(documents),
    delete: (tenant, name, ids) => engine.get(tenant, name).delete(ids),
    getDocument: (tenant, name, id) => (engine.has(tenant, name) ? engine.get(tenant, name).getDocument(id) : undefined),
    documentIds(tenant, name) {
      if (!engine.has(tenant, name)) return [];
      const ids: string[] = [];
      for (const segment of engine.get(tenant, name).segments) {
        segment.data.ids.forEach((id, ord) => {
          if (!has(segment.deleted, ord)) ids.push(id);
        });
      }
      return ids;
    },
    writer: (tenant, name, options = {}) => new ServiceBatchWriter(service, tenant, name, options.batchDocs ?? 1000),
    on: (event, handler) => engine.on(event, handler),
    registerExpander: (name, expander) => engine.expanders.register(name, expander),
    visualTerms: (tenant, name, options = {}) => (engine.has(tenant, name) ? visualTerms(engine.get(tenant, name), options) : []),
  };
  return service;
}

/**
 * Buffers upserts and deletes in arrival order and applies each run of one kind as one write, so
 * a delete after an upsert of the same id leaves it deleted. Full batches are applied as they fill.
 */
class ServiceBatchWriter implements BatchWriter {
  private readonly service: SearchService;
  private readonly tenant: string;
  private readonly index: string;
  private readonly batchDocs: number;
  private op: 'upsert' | 'delete' | undefined;
  private docs: Array<Record<string, unknown>> = [];
  private ids: string[] = [];
  private closed = false;
  private totals = { written: { indexed: 0, ids: [] as string[], errors: [] as WriteResult['errors'] }, deleted: 0 };
  private offset = 0;

  constructor(service: SearchService, tenant: string, index: string, batchDocs: number) {
    this.service = service;
    this.tenant = tenant;
    this.index = index;
    this.batchDocs = Math.max(1, batchDocs);
  }

  async upsert(document: Record<string, unknown>): Promise<void> {
    this.open();
    if (this.op === 'delete') await this.apply();
    this.op = 'upsert';
    this.docs.push(document);
    if (this.docs.length >= this.batchDocs) await this.apply();
  }

  async delete(id: string): Promise<void> {
    this.open();
    if (this.op === 'upsert') await this.apply();
    this.op = 'delete';
    this.ids.push(id);
    if (this.ids.length >= this.batchDocs) await this.apply();
  }

  /** Applies what is buffered; answers the totals since the last flush (positions count every upsert since then). */
  async flush(): Promise<{ written: WriteResult; deleted: number }> {
    await this.apply();
    const totals = this.totals;
    this.totals = { written: { indexed: 0, ids: [], errors: [] }, deleted: 0 };
    this.offset = 0;
    return totals;
  }

  async close(): Promise<{ written: WriteResult; deleted: number }> {
    const totals = await this.flush();
    this.closed = true;
    return totals;
  }

  private open(): void {
    if (this.closed) throw new Error(`The batch writer of index "${this.index}" is closed`);
  }

  private async apply(): Promise<void> {
    if (this.docs.length > 0) {
      const docs = this.docs;
      this.docs = [];
      const result = await this.service.upsert(this.tenant, this.index, docs);
      this.totals.written.indexed += result.indexed;
      this.totals.written.ids.push(...result.ids);
      for (const e of result.errors) this.totals.written.errors.push({ ...e, position: e.position + this.offset });
      this.offset += docs.length;
    }
    if (this.ids.length > 0) {
      const ids = this.ids;
      this.ids = [];
      this.totals.deleted += await this.service.delete(this.tenant, this.index, ids);
    }
    this.op = undefined;
  }
}
