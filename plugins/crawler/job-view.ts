import type { JobRecord } from 'tessera-runtime/plugin';
import type { CrawlCounts, CrawlError, CrawlSnapshot, CrawlSummary } from './crawl-report.js';
import type { CrawlInput } from './crawl-config.js';

/** A crawl job's public state. The runtime's `interrupted` (the process died under it) shows as `failed`, reason `interrupted`. */
export type CrawlJobState = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';

export interface CrawlJobView {
  id: string;
  scheduleId: string | null;
  name: string;
  state: CrawlJobState;
  /** Why a job failed or stopped: `interrupted`, `timeout`, an index error code... */
  reason?: string;
  message?: string;
  counts: CrawlCounts;
  skippedBy: Record<string, number>;
  errors: CrawlError[];
  progress: { pages: number; maxPages: number; queued: number; value: number };
  stoppedBy?: string;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  updatedAt: string;
}

export function emptyCounts(): CrawlCounts {
  return { fetched: 0, indexed: 0, skipped: 0, unchanged: 0, failed: 0, removed: 0 };
}

/** The numbers of a job: its result once completed, else the last progress it reported. */
function snapshotOf(job: JobRecord): Partial<CrawlSummary> {
  const result = job.result as Partial<CrawlSummary> | undefined;
  if (result?.counts) return result;
  return (job.progress?.details as Partial<CrawlSnapshot> | undefined) ?? {};
}

export function publicJob(job: JobRecord): CrawlJobView {
  const input = job.input as CrawlInput;
  const snapshot = snapshotOf(job);
  let state: CrawlJobState;
  let reason: string | undefined;
  if (job.state === 'interrupted') {
    state = 'failed';
    reason = 'interrupted';
  } else {
    state = job.state;
    if (job.state === 'failed') reason = job.error?.code;
  }
  const maxPages = input.config?.maxPages ?? 0;
  const pages = snapshot.pages ?? 0;
  return {
    id: job.id,
    scheduleId: job.scheduleId ?? null,
    name: input.name,
    state,
    ...(reason !== undefined ? { reason } : {}),
    ...((state === 'failed' || state === 'cancelled') && job.error ? { message: job.error.message } : {}),
    counts: { ...emptyCounts(), ...snapshot.counts },
    skippedBy: snapshot.skippedBy ?? {},
    errors: snapshot.errors ?? [],
    progress: { pages, maxPages, queued: snapshot.queued ?? 0, value: state === 'completed' ? 1 : maxPages > 0 ? Math.min(1, pages / maxPages) : 0 },
    ...(snapshot.stoppedBy ? { stoppedBy: snapshot.stoppedBy } : {}),
    createdAt: job.createdAt,
    startedAt: job.startedAt ?? null,
    finishedAt: job.finishedAt ?? null,
    updatedAt: job.updatedAt,
  };
}

/** What a schedule listing shows of its last run. */
export function runSummary(job: JobRecord): Pick<CrawlJobView, 'id' | 'state' | 'counts' | 'startedAt' | 'finishedAt'> & { reason?: string } {
  const view = publicJob(job);
  return {
    id: view.id,
    state: view.state,
    ...(view.reason ? { reason: view.reason } : {}),
    counts: view.counts,
    startedAt: view.startedAt,
    finishedAt: view.finishedAt,
  };
}
