import { isTesseraError, type JobContext, type Logger, type OutboundClient } from 'tessera-runtime/plugin';
import { HttpSink, InProcessSink, type IndexSink, type SearchService } from './sinks.js';
import { Crawl } from './crawl.js';
import type { CheckpointStore } from './crawl-checkpoint.js';
import type { CrawlSummary } from './crawl-report.js';
import { crawledIndexShape } from './crawled-page.js';
import type { CrawlInput } from './crawl-config.js';
import { errors } from './errors.js';
import type { CrawlerOptions } from './options.js';
import type { PageStore } from './page-store.js';

export interface RunnerDeps {
  search: SearchService;
  outbound: OutboundClient;
  pages: PageStore;
  checkpoints: CheckpointStore;
  options: CrawlerOptions;
  log: Logger;
}

/**
 * Runs one crawl job: picks the index sink, runs the crawl (from the job's checkpoint when an
 * earlier attempt was cut short), and reports its numbers as progress. The checkpoint is kept
 * only while the job may resume: a shutdown keeps it, any other end drops it.
 */
export class CrawlRunner {
  private readonly deps: RunnerDeps;

  constructor(deps: RunnerDeps) {
    this.deps = deps;
  }

  get allow() {
    return { allowPrivate: this.deps.options.allowPrivateAddresses, allowHosts: this.deps.options.allowHosts };
  }

  private sink(input: CrawlInput, tenant: string): IndexSink | undefined {
    const target = input.autoIndex;
    if (!target || !target.enabled || target.index === undefined) return undefined;
    const { options } = this.deps;
    if (target.engineUrl === undefined) return new InProcessSink(this.deps.search, tenant, target.index, crawledIndexShape, options.batchDocs);
    return new HttpSink({
      engineUrl: target.engineUrl,
      bulkUrl: target.bulkUrl ?? target.engineUrl,
      index: target.index,
      shape: crawledIndexShape,
      batchDocs: options.batchDocs,
      outbound: this.deps.outbound,
      allow: this.allow,
      ...(options.engineApiKey ? { apiKey: options.engineApiKey } : {}),
    });
  }

  async execute(job: JobContext<CrawlInput>): Promise<CrawlSummary> {
    try {
      return await this.crawl(job);
    } finally {
      if (!(job.signal.aborted && job.signal.reason === 'shutdown'))
        await this.deps.checkpoints.drop(job.id).catch((err) => job.log.error({ err }, 'could not drop the crawl checkpoint'));
    }
  }

  private async crawl(job: JobContext<CrawlInput>): Promise<CrawlSummary> {
    const { options } = this.deps;
    const input = job.input;
    const sink = this.sink(input, job.tenant);
    const indexError = (err: unknown) => {
      const reason = err instanceof Error ? err.message : String(err);
      return errors.crawl_index_failed({ index: input.autoIndex?.index ?? '', destination: sink?.destination ?? '', reason }, { cause: err });
    };
    if (sink) {
      try {
        await sink.ensureIndex();
      } catch (err) {
        throw indexError(err);
      }
    }
    const resume = this.deps.checkpoints.load(job.id);
    if (resume)
      job.log.info({ queued: resume.queue.length, counts: resume.meta.report.counts, savedAt: resume.meta.savedAt }, 'crawl resumes from its checkpoint');
    const crawl = new Crawl({
      config: input.config,
      jobId: job.id,
      checkpoints: this.deps.checkpoints,
      checkpointIntervalMs: options.checkpointIntervalMs,
      ...(resume ? { resume } : {}),
      tenant: job.tenant,
      // A job enqueued by hand (not by a schedule) keeps its page states under its own id.
      scheduleId: job.scheduleId ?? job.id,
      outbound: this.deps.outbound,
      allow: this.allow,
      ...(options.userAgent ? { userAgent: options.userAgent } : {}),
      robotsAgent: options.userAgent ?? 'Tessera',
      maxCrawlDelayMs: options.maxCrawlDelayMs,
      maxReportedErrors: options.maxReportedErrors,
      batchDocs: options.batchDocs,
      pages: this.deps.pages,
      ...(sink ? { sink } : {}),
      signal: job.signal,
      onProgress: (snapshot) => job.progress(input.config.maxPages > 0 ? Math.min(1, snapshot.pages / input.config.maxPages) : 0, { ...snapshot }),
    });
    let summary: CrawlSummary;
    try {
      summary = await crawl.run();
    } catch (err) {
      job.progress(0, { ...crawl.snapshot() });
      if (job.signal.aborted) throw new Error(`The crawl stopped (${String(job.signal.reason)}).`);
      // The index refused a batch or could not be reached: the crawl cannot go on without it.
      if (isTesseraError(err) && err.status !== 500) throw indexError(err);
      throw err;
    }
    if (job.signal.aborted) throw new Error(`The crawl stopped (${String(job.signal.reason)}); ${summary.counts.fetched} pages were fetched.`);
    job.log.info({ counts: summary.counts }, 'crawl finished');
    return summary;
  }
}
