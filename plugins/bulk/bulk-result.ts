export interface BulkError {
  line: number;
  index?: string;
  id?: string;
  code: string;
  message: string;
}

/**
 * What a bulk request answers. Counts cover every line; `errors` lists the first `maxErrors` failures
 * with their line numbers (a stream can have millions of lines, and the answer must stay bounded).
 */
export class BulkResult {
  indexed = 0;
  deleted = 0;
  failed = 0;
  readonly errors: BulkError[] = [];
  private readonly maxErrors: number;

  constructor(maxErrors: number) {
    this.maxErrors = maxErrors;
  }

  fail(error: BulkError): void {
    this.failed++;
    if (this.errors.length < this.maxErrors) this.errors.push(error);
  }

  toJSON(tookMs: number): Record<string, unknown> {
    return {
      ok: true,
      tookMs,
      indexed: this.indexed,
      deleted: this.deleted,
      failed: this.failed,
      // Batches report when they are applied, after lines read later: answer in line order.
      errors: [...this.errors].sort((a, b) => a.line - b.line),
      ...(this.failed > this.errors.length ? { errorsTruncated: true } : {}),
    };
  }
}
