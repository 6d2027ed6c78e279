import { isTesseraError } from 'tessera-runtime/plugin';
import { RedirectLimitError } from './fetcher.js';

/** The numbers a crawl job shows. */
export interface CrawlCounts {
  /** Pages requested that answered (any status, 304 included). */
  fetched: number;
  /** Documents the index acknowledged. */
  indexed: number;
  /** Pages deliberately left out: robots.txt, content type, size, duplicates, `noindex`, off-site redirects. */
  skipped: number;
  /** Pages that had not changed since the last run (304, or the same content hash). */
  unchanged: number;
  /** Pages that could not be crawled or indexed (timeouts, errors, 4xx/5xx, refused documents). */
  failed: number;
  /** Documents removed from the index because their page is gone (404/410). */
  removed: number;
}

export interface CrawlError {
  url: string;
  code: string;
  message: string;
  status?: number;
}

export interface CrawlSnapshot {
  counts: CrawlCounts;
  /** `skipped`, by reason. */
  skippedBy: Record<string, number>;
  /** The first failures (bounded by the `maxReportedErrors` option); `counts.failed` has them all. */
  errors: CrawlError[];
  /** Pages requested so far (the `maxPages` budget). */
  pages: number;
  /** URLs waiting in the frontier. */
  queued: number;
}

export interface CrawlSummary extends CrawlSnapshot {
  /** Why the crawl ended early, if it did: `maxPages`, or the abort reason (`cancelled`, `shutdown`). */
  stoppedBy?: string;
}

/** What a failed request was, as a job error code and whether it counts as failed or skipped. */
export function classify(err: unknown): { code: string; skip: boolean; message: string } {
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof RedirectLimitError) return { code: 'redirect_limit', skip: false, message };
  if (isTesseraError(err)) {
    if (err.code === 'upstream_too_large') return { code: 'too_large', skip: true, message };
    if (err.code === 'upstream_timeout') return { code: 'timeout', skip: false, message };
    if (err.code === 'upstream_unreachable') return { code: 'unreachable', skip: false, message };
    if (err.code === 'egress_denied') {
      const reason = (err.details as { reason?: string } | undefined)?.reason;
      return { code: reason === 'redirect_limit' ? 'redirect_limit' : 'egress_denied', skip: false, message };
    }
    return { code: err.code, skip: false, message };
  }
  return { code: 'fetch_failed', skip: false, message };
}

/** What a checkpoint keeps of a report, to carry the numbers on when the crawl resumes. */
export interface CrawlReportState {
  counts: CrawlCounts;
  skippedBy: Record<string, number>;
  errors: CrawlError[];
}

/** The counts, skip reasons and bounded error list of one crawl run. */
export class CrawlReport {
  readonly counts: CrawlCounts = { fetched: 0, indexed: 0, skipped: 0, unchanged: 0, failed: 0, removed: 0 };
  private readonly skippedBy: Record<string, number> = {};
  private readonly errors: CrawlError[] = [];
  private readonly maxErrors: number;

  constructor(maxErrors: number, from?: CrawlReportState) {
    this.maxErrors = maxErrors;
    if (!from) return;
    Object.assign(this.counts, from.counts);
    Object.assign(this.skippedBy, from.skippedBy);
    this.errors.push(...from.errors.slice(0, maxErrors));
  }

  state(): CrawlReportState {
    return { counts: { ...this.counts }, skippedBy: { ...this.skippedBy }, errors: [...this.errors] };
  }

  skip(reason: string): void {
    this.counts.skipped++;
    this.skippedBy[reason] = (this.skippedBy[reason] ?? 0) + 1;
  }

  fail(url: string, what: { code: string; skip: boolean; message: string }, status?: number): void {
    if (what.skip) return this.skip(what.code);
    this.counts.failed++;
    if (this.errors.length < this.maxErrors) this.errors.push({ url, code: what.code, message: what.message, ...(status !== undefined ? { status } : {}) });
  }

  snapshot(pages: number, queued: number): CrawlSnapshot {
    return { counts: { ...this.counts }, skippedBy: { ...this.skippedBy }, errors: [...this.errors], pages, queued };
  }
}
