import type { EventLog, JobContext, Logger, OutboundClient, PluginJobs } from 'tessera-runtime/plugin';
import type { SearchService } from '../search/index.js';
import { DatabaseScan, databaseIndexShape, type DatabaseScanSpec } from './database-scan.js';
import { knexConfig, type Driver } from './database-source.js';
import { FileScan, fileIndexShape } from './file-scan.js';
import { FolderScan, folderIndexShape } from './folder-scan.js';
import { HttpSink } from './http-sink.js';
import { InProcessSink, type IndexShape, type IndexSink } from './index-sink.js';
import type { ScannerOptions } from './options.js';
import { scrub, scrubError, secretsOf } from './redact.js';
import type { Roots } from './roots.js';
import { finalScanStates, type ScanRecord } from './scan-record.js';
import { ScanRun } from './scan-run.js';
import type { ScanStore } from './scan-store.js';

export interface ScanJobInput {
  scanId: string;
}

export interface RunnerDeps {
  store: ScanStore;
  events: EventLog;
  jobs: PluginJobs;
  search: SearchService;
  outbound: OutboundClient;
  roots: Roots;
  options: ScannerOptions;
  log: Logger;
}

/** Runs a scan's job: picks the source and the sink, keeps the record's state, and never lets a secret out. */
export class ScanRunner {
  private readonly deps: RunnerDeps;

  constructor(deps: RunnerDeps) {
    this.deps = deps;
  }

  sink(record: ScanRecord, tenant: string, shape: IndexShape, signal?: AbortSignal): IndexSink {
    const { options } = this.deps;
    const engineUrl = record.input.engineUrl as string | undefined;
    if (engineUrl === undefined) return new InProcessSink(this.deps.search, tenant, record.targetIndex, shape, options.batchDocs);
    return new HttpSink({
      engineUrl,
      bulkUrl: (record.input.bulkUrl as string | undefined) ?? engineUrl,
      index: record.targetIndex,
      shape,
      batchDocs: options.batchDocs,
      outbound: this.deps.outbound,
      allow: { allowPrivate: options.allowPrivateAddresses, allowHosts: options.allowHosts },
      ...(options.engineApiKey ? { apiKey: options.engineApiKey } : {}),
      ...(signal ? { signal } : {}),
    });
  }

  /** The secret connection of a database scan (kept apart from the record). */
  connectionOf(tenant: string, id: string): unknown {
    return this.deps.store.secrets(tenant).get(id)?.connection;
  }

  async execute(job: JobContext<ScanJobInput>): Promise<{ counts: ScanRecord['counts'] } | { skipped: string }> {
    const { store, events, options, log } = this.deps;
    const tenant = job.tenant;
    const record = store.get(tenant, job.input.scanId);
    if (!record) return { skipped: 'the scan record is gone' };
    if (finalScanStates.has(record.state)) return { skipped: `the scan is already ${record.state}` };
    const run = new ScanRun(store, events, tenant, record, options.maxReportedErrors);
    const connection = record.type === 'database' ? this.connectionOf(tenant, record.id) : undefined;
    const secrets = connection === undefined ? [] : secretsOf(connection);
    await run.setState('running', { jobId: job.id, retry: null });
    const onWatching = () => run.setState('watching');
    try {
      if (record.type === 'folder') {
        const input = record.input as { realPath: string; watch?: boolean; include?: string[]; exclude?: string[] };
        await new FolderScan(
          {
            root: input.realPath,
            watch: input.watch === true,
            ...(input.include ? { include: input.include } : {}),
            ...(input.exclude ? { exclude: input.exclude } : {}),
          },
          {
            run,
            sink: this.sink(record, tenant, folderIndexShape, job.signal),
            store,
            roots: this.deps.roots,
            batchDocs: options.batchDocs,
            maxTextBytes: options.maxTextBytes,
            watchStabilityMs: options.watchStabilityMs,
            signal: job.signal,
            log,
            onWatching,
          },
        ).run();
      } else if (record.type === 'file') {
        const input = record.input as { realPath: string; format: 'jsonl' | 'csv'; idField?: string };
        await new FileScan(
          { file: input.realPath, format: input.format, ...(input.idField !== undefined ? { idField: input.idField } : {}) },
          {
            run,
            sink: this.sink(record, tenant, fileIndexShape, job.signal),
            store,
            batchDocs: options.batchDocs,
            maxLineBytes: options.maxLineBytes,
            signal: job.signal,
          },
        ).run();
      } else {
        const input = record.input as {
          driver: Driver;
          table: string;
          watermarkColumn: string;
          primaryKey?: string;
          pollIntervalMs?: number;
          pageSize?: number;
          watch?: boolean;
        };
        const spec: DatabaseScanSpec = {
          config: knexConfig(input.driver, connection as string | Record<string, unknown>, this.deps.roots, (level, message) =>
            log[level]({ scan: record.id }, scrub(message, secrets)),
          ),
          table: input.table,
          watermarkColumn: input.watermarkColumn,
          ...(input.primaryKey !== undefined ? { primaryKey: input.primaryKey } : {}),
          pollIntervalMs: input.pollIntervalMs ?? options.pollIntervalMs,
          pageSize: input.pageSize ?? options.pageSize,
          watch: input.watch !== false,
        };
        await new DatabaseScan(spec, {
          run,
          sink: this.sink(record, tenant, databaseIndexShape, job.signal),
          store,
          signal: job.signal,
          log,
          secrets,
          retryDelayMs: options.retryDelayMs,
          maxRetryDelayMs: options.maxRetryDelayMs,
          queryTimeoutMs: options.queryTimeoutMs,
          onWatching,
        }).run();
      }
      await run.setState('completed', { retry: null });
      await this.forgetSecret(tenant, record);
      return { counts: run.counts };
    } catch (err) {
      const reason = job.signal.aborted ? String(job.signal.reason) : undefined;
      if (reason === 'shutdown') {
        // Not the scan's failure: it is queued again and resumes at the next start.
        await run.setState('queued');
        throw new Error('The process shut down while the scan ran; it resumes at the next start.');
      }
      if (reason === 'cancelled') {
        await run.setState('stopped', { retry: null });
        await this.forgetSecret(tenant, record);
        throw new Error('The scan was stopped.');
      }
      const message = scrubError(err, secrets);
      const code = typeof (err as { code?: unknown }).code === 'string' ? (err as { code: string }).code : 'scan_failed';
      await run.setState('failed', { error: { code, message }, retry: null });
      await this.forgetSecret(tenant, record);
      throw Object.assign(new Error(message), { code });
    }
  }

  /**
   * The job that runs a scan. The record learns its job id when the job starts; until then the
   * job is found by its input among the tenant's unfinished scan jobs.
   */
  jobOf(tenant: string, record: ScanRecord) {
    if (record.jobId) return this.deps.jobs.get(record.jobId);
    const jobs = this.deps.jobs.tenant(tenant);
    let cursor: string | undefined;
    do {
      const page = jobs.list({ name: 'scan', limit: 1000, ...(cursor ? { cursor } : {}) });
      const found = page.jobs.find((j) => (j.input as ScanJobInput).scanId === record.id);
      if (found) return found;
      cursor = page.next;
    } while (cursor);
    return undefined;
  }

  /** A finished database scan needs its credentials no more. */
  private async forgetSecret(tenant: string, record: ScanRecord): Promise<void> {
    if (record.type === 'database') await this.deps.store.secrets(tenant).remove(record.id);
  }

  /**
   * At start: a scan whose job can no longer run (it failed after repeated crashes, or was removed)
   * is marked failed rather than left "running" for ever.
   */
  async reconcile(): Promise<void> {
    for (const { tenant, record } of this.deps.store.unfinished()) {
      const job = this.jobOf(tenant, record);
      if (job && (job.state === 'queued' || job.state === 'running')) continue;
      const run = new ScanRun(this.deps.store, this.deps.events, tenant, record, this.deps.options.maxReportedErrors);
      await run.setState('failed', {
        error: { code: 'interrupted', message: `The scan was interrupted and cannot resume (its job is ${job?.state ?? 'gone'}).` },
        retry: null,
      });
      await this.forgetSecret(tenant, record);
    }
  }
}
