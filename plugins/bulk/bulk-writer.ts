import type { SearchService } from '../search/index.js';
import type { BulkResult } from './bulk-result.js';

interface PendingDoc {
  line: number;
  doc: unknown;
}

/**
 * Collects consecutive operations on one index and applies them in batches. A change of index or
 * of operation flushes first, so the order of the stream is the order of effect (an `index`
 * followed by a `delete` of the same id leaves it deleted).
 */
export class BulkWriter {
  private readonly search: SearchService;
  private readonly tenant: string;
  private readonly result: BulkResult;
  private readonly batchDocs: number;
  private index?: string;
  private op?: 'index' | 'delete';
  private docs: PendingDoc[] = [];
  private deletes: Array<{ line: number; id: string }> = [];

  constructor(
    search: SearchService,
    tenant: string,
    result: BulkResult,
    batchDocs: number,
    /** Whether the caller's key may see the index (index-scoped keys); others do not exist for it. */
    private readonly visible: (index: string) => boolean = () => true,
  ) {
    this.search = search;
    this.tenant = tenant;
    this.result = result;
    this.batchDocs = batchDocs;
  }

  /** Whether `id` is waiting in the current batch for `index` (so `create` can refuse it too). */
  isPending(index: string, id: string): boolean {
    return this.index === index && this.op === 'index' && this.pendingIds.has(id);
  }

  private pendingIds = new Set<string>();

  async add(index: string, line: number, doc: unknown): Promise<void> {
    if (this.index !== index || this.op !== 'index') await this.flush();
    this.index = index;
    this.op = 'index';
    this.docs.push({ line, doc });
    const id = (doc as { id?: unknown } | null)?.id;
    if (typeof id === 'string' || typeof id === 'number') this.pendingIds.add(String(id));
    if (this.docs.length >= this.batchDocs) await this.flush();
  }

  async remove(index: string, line: number, id: string): Promise<void> {
    if (this.index !== index || this.op !== 'delete') await this.flush();
    this.index = index;
    this.op = 'delete';
    this.deletes.push({ line, id });
    if (this.deletes.length >= this.batchDocs) await this.flush();
  }

  async flush(): Promise<void> {
    const index = this.index;
    const docs = this.docs;
    const deletes = this.deletes;
    this.docs = [];
    this.deletes = [];
    this.pendingIds = new Set();
    if (index === undefined || (docs.length === 0 && deletes.length === 0)) return;
    if (!this.visible(index) || this.search.get(this.tenant, index) === undefined) {
      // The index is unknown in the caller's tenant: every line of the batch fails, the stream goes on.
      const code = 'index_not_found';
      const message = `Index "${index}" does not exist.`;
      for (const d of docs) this.result.fail({ line: d.line, index, code, message });
      for (const d of deletes) this.result.fail({ line: d.line, index, id: d.id, code, message });
      return;
    }
    if (docs.length > 0) {
      const outcome = await this.search.upsert(
        this.tenant,
        index,
        docs.map((d) => d.doc),
      );
      this.result.indexed += outcome.indexed;
      for (const e of outcome.errors)
        this.result.fail({ line: docs[e.position]!.line, index, ...(e.id !== undefined ? { id: e.id } : {}), code: e.code, message: e.message });
    }
    if (deletes.length > 0) {
      const existing = new Set<string>();
      for (const d of deletes) if (this.search.getDocument(this.tenant, index, d.id)) existing.add(d.id);
      this.result.deleted += await this.search.delete(
        this.tenant,
        index,
        deletes.map((d) => d.id),
      );
      for (const d of deletes) {
        if (!existing.has(d.id))
          this.result.fail({ line: d.line, index, id: d.id, code: 'document_not_found', message: `Index "${index}" has no document "${d.id}".` });
      }
    }
  }
}
