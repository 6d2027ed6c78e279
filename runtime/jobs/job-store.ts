import type { Database } from 'lmdb' with { 'resolution-mode': 'require' };
import type { StoreNamespace } from '../store.js';
import { terminalJobStates, type JobRecord, type ScheduleRecord } from './job-types.js';

/**
 * Where jobs and schedules live, in the runtime's own store namespace:
 * `jobs` [plugin, jobId] -> record; `jobKeys` [plugin, jobName, tenant key] -> jobId (idempotent
 * enqueue; the key is scoped to the job's tenant, see `tenantKey`);
 * `jobsFinished` [plugin, finishedAtMs, jobId] -> 1 (retention, oldest first);
 * `schedules` [plugin, tenant, scheduleId] -> record.
 */
export class JobStore {
  private readonly jobs: Database<JobRecord, [string, string]>;
  private readonly keys: Database<string, [string, string, string]>;
  private readonly finished: Database<number, [string, number, string]>;
  private readonly schedules: Database<ScheduleRecord, [string, string, string]>;
  private readonly ns: StoreNamespace;

  constructor(ns: StoreNamespace) {
    this.ns = ns;
    this.jobs = ns.db<JobRecord, [string, string]>('jobs');
    this.keys = ns.db<string, [string, string, string]>('jobKeys');
    this.finished = ns.db<number, [string, number, string]>('jobsFinished');
    this.schedules = ns.db<ScheduleRecord, [string, string, string]>('schedules');
  }

  get(plugin: string, id: string): JobRecord | undefined {
    return this.jobs.get([plugin, id]);
  }

  /** The stored job of `tenant`'s `key`, if any (looked up inside a write transaction by `insert`). */
  byKey(plugin: string, name: string, tenant: string, key: string): JobRecord | undefined {
    const id = this.keys.get([plugin, name, tenantKey(tenant, key)]);
    const job = id === undefined ? undefined : this.jobs.get([plugin, id]);
    return job?.tenant === tenant ? job : undefined;
  }

  /**
   * Writes a new job unless `existing(job)` finds one to return instead; both in one write
   * transaction, so two concurrent enqueues with one key make one job.
   */
  insert(job: JobRecord, existing: () => JobRecord | undefined): Promise<{ job: JobRecord; created: boolean }> {
    return this.ns.transaction(() => {
      const found = existing();
      if (found) return { job: found, created: false };
      void this.jobs.put([job.plugin, job.id], job);
      if (job.key !== undefined) void this.keys.put([job.plugin, job.name, tenantKey(job.tenant, job.key)], job.id);
      return { job, created: true };
    });
  }

  /** Store a new version of a job; a terminal one enters the retention index. */
  async update(job: JobRecord): Promise<void> {
    if (terminalJobStates.has(job.state) && job.finishedAt) {
      await this.ns.transaction(() => {
        void this.jobs.put([job.plugin, job.id], job);
        void this.finished.put([job.plugin, Date.parse(job.finishedAt!), job.id], 1);
      });
      return;
    }
    await this.jobs.put([job.plugin, job.id], job);
  }

  /** Every job of a plugin, oldest first (start-up recovery). */
  *all(plugin: string): IterableIterator<JobRecord> {
    for (const { value } of this.jobs.getRange({ start: [plugin, ''], end: [plugin, '\uffff'] })) yield value;
  }

  /** Jobs of a plugin, newest first, starting below `before` (a job id) when given. */
  *newestFirst(plugin: string, before?: string): IterableIterator<JobRecord> {
    const start: [string, string] = before === undefined ? [plugin, '\uffff'] : [plugin, before];
    for (const { key, value } of this.jobs.getRange({ start, end: [plugin, ''], reverse: true })) {
      if (before !== undefined && key[1] === before) continue;
      yield value;
    }
  }

  countFinished(plugin: string): number {
    return this.finished.getCount({ start: [plugin, 0, ''], end: [plugin, Number.MAX_SAFE_INTEGER, ''] });
  }

  /**
   * Delete finished jobs older than `cutoffMs`, then the oldest beyond `keep`, at most `batch` per
   * call: retention runs in small steps so it never stalls the process.
   */
  async prune(plugin: string, options: { cutoffMs: number; keep: number; batch: number; finishedCount: number }): Promise<number> {
    const doomed: Array<[string, number, string]> = [];
    let excess = options.finishedCount - options.keep;
    for (const key of this.finished.getKeys({ start: [plugin, 0, ''], end: [plugin, Number.MAX_SAFE_INTEGER, ''], limit: options.batch })) {
      if (key[1] >= options.cutoffMs && excess <= 0) break;
      doomed.push(key);
      excess--;
    }
    if (doomed.length === 0) return 0;
    await this.ns.transaction(() => {
      for (const key of doomed) {
        const job = this.jobs.get([plugin, key[2]]);
        void this.finished.remove(key);
        if (!job) continue;
        void this.jobs.remove([plugin, job.id]);
        // The key now belongs to a newer job when it was enqueued again: leave that mapping alone.
        const indexKey = job.key === undefined ? undefined : tenantKey(job.tenant, job.key);
        if (indexKey !== undefined && this.keys.get([plugin, job.name, indexKey]) === job.id) void this.keys.remove([plugin, job.name, indexKey]);
      }
    });
    return doomed.length;
  }

  getSchedule(plugin: string, tenant: string, id: string): ScheduleRecord | undefined {
    return this.schedules.get([plugin, tenant, id]);
  }

  putSchedule(record: ScheduleRecord): Promise<boolean> {
    return this.schedules.put([record.plugin, record.tenant, record.id], record);
  }

  /** False when there was no such schedule (lmdb's remove resolves true either way). */
  async removeSchedule(plugin: string, tenant: string, id: string): Promise<boolean> {
    return this.ns.transaction(() => {
      if (!this.schedules.doesExist([plugin, tenant, id])) return false;
      void this.schedules.remove([plugin, tenant, id]);
      return true;
    });
  }

  *schedulesOf(plugin: string, tenant?: string): IterableIterator<ScheduleRecord> {
    const start: [string, string, string] = tenant === undefined ? [plugin, '', ''] : [plugin, tenant, ''];
    const end: [string, string, string] = tenant === undefined ? [plugin, '\uffff', ''] : [plugin, tenant, '\uffff'];
    for (const { value } of this.schedules.getRange({ start, end })) yield value;
  }
}

/**
 * The index key of an idempotency key: the key itself for the `default` tenant (the form stored
 * before keys were scoped, so those records still match), tenant-prefixed for the others, so two
 * tenants enqueueing with the same key (a ticket id) each get their own job.
 */
function tenantKey(tenant: string, key: string): string {
  return tenant === 'default' ? key : `${tenant}\u0000${key}`;
}
