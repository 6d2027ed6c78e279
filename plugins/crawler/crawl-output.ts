import type { CheckpointMeta, CheckpointStore } from './crawl-checkpoint.js';
import type { CrawlReport } from './crawl-report.js';
import type { FrontierDelta } from './frontier.js';
import type { PageState, PageStore } from './page-store.js';
import type { IndexSink } from './sinks.js';

export interface CrawlOutputDeps {
  tenant: string;
  scheduleId: string;
  jobId: string;
  pages: PageStore;
  checkpoints: CheckpointStore;
  /** Absent: the crawl tracks pages without indexing them. */
  sink?: IndexSink;
  report: CrawlReport;
}

/**
 * What a crawl writes: documents to the index, and, at each checkpoint, in one transaction, the
 * page states of the batch the index acknowledged with the frontier's changes and the counts.
 */
export class CrawlOutput {
  private readonly deps: CrawlOutputDeps;
  /** Page states to store once the index has acknowledged the batch they belong to (null: forget). */
  private pending = new Map<string, PageState | null>();
  /** The index failed: the crawl stops and the job fails with this error. */
  failure: { error: unknown } | undefined;

  constructor(deps: CrawlOutputDeps) {
    this.deps = deps;
  }

  get indexing(): boolean {
    return this.deps.sink !== undefined;
  }

  /** A write to the index; a failure stops the crawl (it is the job's failure, not the page's). */
  async write(change: (sink: IndexSink) => Promise<void>): Promise<boolean> {
    if (!this.deps.sink) return true;
    if (this.failure) return false;
    try {
      await change(this.deps.sink);
      return true;
    } catch (err) {
      this.failure ??= { error: err };
      return false;
    }
  }

  /** A page's state (null: forget the page), stored with the next checkpoint. */
  remember(url: string, state: PageState | null): void {
    this.pending.set(url, state);
  }

  /**
   * Sends the buffered documents and, once the index has acknowledged them, stores the page states
   * of that batch (a page is remembered as indexed only when it is), the frontier's changes and
   * the counts, in one transaction. Nothing is stored once the index has failed.
   */
  async checkpoint(delta: () => FrontierDelta, meta: () => Omit<CheckpointMeta, 'format' | 'savedAt'>): Promise<void> {
    const pending = this.pending;
    this.pending = new Map();
    if (this.failure) return;
    const { report, sink } = this.deps;
    if (sink) {
      let result;
      try {
        result = await sink.flush();
      } catch (err) {
        this.failure ??= { error: err };
        return;
      }
      report.counts.indexed += result.indexed;
      const refused = new Set<string>();
      for (const e of result.errors) {
        if (e.id) refused.add(e.id);
        report.fail(e.id ?? '(index)', { code: e.code, skip: false, message: e.message });
      }
      // A refused document is not remembered, so the next run tries it again.
      for (const [url, state] of pending) if (state?.docId && refused.has(state.docId)) pending.delete(url);
    }
    const { tenant, scheduleId, pages } = this.deps;
    await this.deps.checkpoints.save(this.deps.jobId, delta(), meta(), () => pages.write(tenant, scheduleId, pending));
  }
}
