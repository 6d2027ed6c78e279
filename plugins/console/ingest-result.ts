import type { SearchService } from '../search/index.js';

/** Where an item came from: its file (multipart), its 1-based number, and its line when the format has lines. */
export interface ItemRef {
  file: string | null;
  item: number;
  line?: number;
}

export interface IngestError extends ItemRef {
  id?: string;
  code: string;
  message: string;
}

export interface FileSummary {
  name: string | null;
  format: string;
  items: number;
  indexed: number;
  failed: number;
  /** An image file: the id of its document, once analysed. */
  id?: string;
}

/**
 * Counts and the first `maxErrors` failures of one ingestion (the answer must stay bounded however
 * many items fail), with a line per file.
 */
export class IngestResult {
  indexed = 0;
  failed = 0;
  readonly errors: IngestError[] = [];
  readonly files: FileSummary[] = [];

  constructor(private readonly maxErrors: number) {}

  file(name: string | null, format: string): FileSummary {
    const summary = { name, format, items: 0, indexed: 0, failed: 0 };
    this.files.push(summary);
    return summary;
  }

  fail(summary: FileSummary | undefined, error: IngestError): void {
    this.failed++;
    if (summary) summary.failed++;
    if (this.errors.length < this.maxErrors) this.errors.push(error);
  }

  toJSON(tookMs: number): Record<string, unknown> {
    const items = this.files.reduce((n, f) => n + f.items, 0);
    return {
      ok: true,
      tookMs,
      items,
      indexed: this.indexed,
      failed: this.failed,
      // Batches report when applied, after later items were read: answer in input order.
      errors: [...this.errors].sort(
        (a, b) => this.files.findIndex((f) => f.name === a.file) - this.files.findIndex((f) => f.name === b.file) || a.item - b.item,
      ),
      ...(this.failed > this.errors.length ? { errorsTruncated: true } : {}),
      files: this.files,
    };
  }
}

/** Documents waiting to be written, applied `batchDocs` at a time through the search service. */
export class IngestBatch {
  private docs: unknown[] = [];
  private refs: Array<{ ref: ItemRef; summary: FileSummary }> = [];

  constructor(
    private readonly search: SearchService,
    private readonly tenant: string,
    private readonly index: string,
    private readonly batchDocs: number,
    private readonly result: IngestResult,
  ) {}

  async add(doc: unknown, ref: ItemRef, summary: FileSummary): Promise<void> {
    this.docs.push(doc);
    this.refs.push({ ref, summary });
    if (this.docs.length >= this.batchDocs) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.docs.length === 0) return;
    const docs = this.docs;
    const refs = this.refs;
    this.docs = [];
    this.refs = [];
    const outcome = await this.search.upsert(this.tenant, this.index, docs);
    const failedAt = new Set<number>();
    for (const e of outcome.errors) {
      const { ref, summary } = refs[e.position]!;
      failedAt.add(e.position);
      this.result.fail(summary, { ...ref, ...(e.id !== undefined ? { id: e.id } : {}), code: e.code, message: e.message });
    }
    this.result.indexed += outcome.indexed;
    // Per file: the items of this batch that were not refused (an id repeated in a batch counts once in `indexed` overall).
    refs.forEach(({ summary }, i) => {
      if (!failedAt.has(i)) summary.indexed++;
    });
  }
}
