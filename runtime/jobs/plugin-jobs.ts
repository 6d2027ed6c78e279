import type { Logger } from 'pino';
import { isTesseraError, NotFoundError } from '../errors.js';
import type { EventLog } from '../events/event-types.js';
import { sortableId } from '../sortable-id.js';
import { retryDelayMs } from './backoff.js';
import { parseCadence, type Cadence } from './cadence.js';
import type { JobMetrics } from './job-metrics.js';
import type { JobStore } from './job-store.js';
import {
  terminalJobStates,
  type EnqueueOptions,
  type JobContext,
  type JobDefinitionOptions,
  type JobError,
  type JobHandler,
  type JobPage,
  type JobRecord,
  type JobState,
  type JobsService,
  type ListJobsOptions,
  type ScheduleOptions,
  type ScheduleRecord,
  type ScheduleSpec,
} from './job-types.js';

export interface JobSettings {
  /** Jobs of one plugin running at once, all names together. */
  concurrency: number;
  /** Finished jobs older than this are deleted. */
  retentionMs: number;
  /** At most this many finished jobs are kept per plugin. */
  maxFinished: number;
  /** How long cancel waits for a running job to stop before answering. */
  cancelWaitMs: number;
}

interface Definition {
  handler: JobHandler<any, any>;
  concurrency: () => number;
  maxAttempts: number;
  backoff: NonNullable<JobDefinitionOptions['retry']>['backoff'];
  timeoutMs?: number;
  onInterrupt: 'retry' | 'fail';
}

interface Running {
  record: JobRecord;
  controller: AbortController;
  settled: Promise<void>;
  /** The attempt was already ended by its timeout; whatever the handler does later is ignored. */
  abandoned: boolean;
  progressDirty: boolean;
  progressTimer?: NodeJS.Timeout;
}

/** A crash loop guard: a job that was running at this many starts in a row fails instead of retrying. */
const MAX_INTERRUPTIONS = 3;
const PROGRESS_FLUSH_MS = 250;
const TIMEOUT_GRACE_MS = 5000;
const PRUNE_BATCH = 500;
/** setTimeout's ceiling; longer waits re-arm. */
const MAX_TIMER_MS = 2 ** 31 - 1;

function nowIso(): string {
  return new Date().toISOString();
}

function errorOf(err: unknown, attempt: number, fallback = 'error'): JobError {
  if (isTesseraError(err)) return { message: err.message, code: err.code, attempt };
  if (err instanceof Error) {
    const code = (err as Error & { code?: unknown }).code;
    return { message: err.message, code: typeof code === 'string' && code !== '' ? code : fallback, attempt };
  }
  return { message: String(err), code: fallback, attempt };
}

export class JobNotFoundError extends NotFoundError {
  constructor(id: string) {
    super('job_not_found', `No job "${id}".`, { details: { id } });
  }
}

/**
 * The jobs and schedules of one plugin: persisted by JobStore, run in this process with per-name
 * and per-plugin concurrency, transitions appended to the plugin's event log as `job.*` entries.
 */
export class PluginJobRunner {
  readonly plugin: string;
  private readonly store: JobStore;
  private readonly events: EventLog<any>;
  private readonly log: Logger;
  private readonly metrics: JobMetrics;
  private readonly settings: JobSettings;
  private readonly definitions = new Map<string, Definition>();
  /** Queued job ids per name, oldest first, with when each may start. */
  private readonly queued = new Map<string, Array<{ id: string; runAt: number }>>();
  private readonly running = new Map<string, Running>();
  private readonly waiters = new Map<string, Set<(job: JobRecord) => void>>();
  /** schedule key -> the job of it that is queued or running. */
  private readonly activeBySchedule = new Map<string, string>();
  private readonly cadences = new Map<string, Cadence>();
  private readonly scheduleTimers = new Map<string, NodeJS.Timeout>();
  private queueTimer?: NodeJS.Timeout;
  private queueTimerAt = Number.POSITIVE_INFINITY;
  private started = false;
  private stopping = false;
  private finishedCount = 0;
  private sincePrune = 0;
  private pruning = false;

  constructor(deps: { plugin: string; store: JobStore; events: EventLog<any>; log: Logger; metrics: JobMetrics; settings: JobSettings }) {
    this.plugin = deps.plugin;
    this.store = deps.store;
    this.events = deps.events;
    this.log = deps.log;
    this.metrics = deps.metrics;
    this.settings = deps.settings;
  }

  // ---- definitions and the queue -------------------------------------------------------------

  define(name: string, handler: JobHandler<any, any>, options: JobDefinitionOptions = {}): void {
    if (this.definitions.has(name)) throw new Error(`Job "${name}" of plugin "${this.plugin}" is already defined`);
    const concurrency = options.concurrency;
    this.definitions.set(name, {
      handler,
      concurrency: typeof concurrency === 'function' ? concurrency : () => concurrency ?? 1,
      maxAttempts: Math.max(1, Math.floor(options.retry?.attempts ?? 1)),
      backoff: options.retry?.backoff,
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      onInterrupt: options.onInterrupt ?? 'retry',
    });
    if (this.started) this.pump();
  }

  async enqueue(name: string, input: unknown, options: EnqueueOptions = {}): Promise<JobRecord> {
    if (this.stopping) throw new Error(`Cannot enqueue job "${name}": shutting down`);
    const def = this.definitions.get(name);
    const now = Date.now();
    const at = new Date(now).toISOString();
    const runAt = new Date(now + Math.max(0, options.delayMs ?? 0)).toISOString();
    const job: JobRecord = {
      id: sortableId('job_', now),
      plugin: this.plugin,
      name,
      tenant: options.tenant ?? 'default',
      ...(options.key !== undefined ? { key: options.key } : {}),
      state: 'queued',
      input,
      attempt: 0,
      maxAttempts: def?.maxAttempts ?? 1,
      attempts: [],
      createdAt: at,
      updatedAt: at,
      runAt,
    };
    const key = options.key;
    const { job: stored, created } = await this.store.insert(job, () => {
      if (key === undefined) return undefined;
      const found = this.store.byKey(this.plugin, name, job.tenant, key);
      if (!found) return undefined;
      if (options.keyScope === 'active' && terminalJobStates.has(found.state)) return undefined;
      return found;
    });
    if (!created) return this.get(stored.id) ?? stored;
    void this.appendEvent('job.queued', stored);
    this.addToQueue(stored);
    this.pump();
    return stored;
  }

  private addToQueue(job: JobRecord): void {
    let list = this.queued.get(job.name);
    if (!list) this.queued.set(job.name, (list = []));
    list.push({ id: job.id, runAt: Date.parse(job.runAt) });
    list.sort((a, b) => a.runAt - b.runAt || (a.id < b.id ? -1 : 1));
  }

  private removeFromQueue(job: JobRecord): boolean {
    const list = this.queued.get(job.name);
    const i = list?.findIndex((e) => e.id === job.id) ?? -1;
    if (i < 0) return false;
    list!.splice(i, 1);
    return true;
  }

  /** Start whatever may start now; arm a timer for the earliest delayed job. */
  private pump(): void {
    if (!this.started || this.stopping) return;
    const now = Date.now();
    let earliest = Number.POSITIVE_INFINITY;
    let progressed = true;
    // Round-robin over names, one job each per round, so one busy name cannot starve the others.
    while (progressed && this.running.size < this.settings.concurrency) {
      progressed = false;
      for (const [name, list] of this.queued) {
        if (this.running.size >= this.settings.concurrency) break;
        const def = this.definitions.get(name);
        if (!def || list.length === 0) continue;
        if (this.runningOf(name) >= Math.max(1, def.concurrency())) continue;
        const head = list[0]!;
        if (head.runAt > now) {
          earliest = Math.min(earliest, head.runAt);
          continue;
        }
        list.shift();
        progressed = true;
        void this.run(head.id, def);
      }
    }
    for (const list of this.queued.values()) if (list[0] && list[0].runAt > now) earliest = Math.min(earliest, list[0].runAt);
    this.armQueueTimer(earliest);
  }

  private armQueueTimer(at: number): void {
    if (at === this.queueTimerAt && this.queueTimer) return;
    if (this.queueTimer) clearTimeout(this.queueTimer);
    this.queueTimer = undefined;
    this.queueTimerAt = at;
    if (!Number.isFinite(at)) return;
    this.queueTimer = setTimeout(
      () => {
        this.queueTimer = undefined;
        this.queueTimerAt = Number.POSITIVE_INFINITY;
        this.pump();
      },
      Math.min(MAX_TIMER_MS, Math.max(0, at - Date.now())),
    );
    this.queueTimer.unref();
  }

  private runningOf(name: string): number {
    let n = 0;
    for (const r of this.running.values()) if (r.record.name === name) n++;
    return n;
  }

  // ---- running one attempt --------------------------------------------------------------------

  private async run(id: string, def: Definition): Promise<void> {
    const stored = this.store.get(this.plugin, id);
    if (!stored || stored.state !== 'queued') return;
    const controller = new AbortController();
    let markSettled!: () => void;
    const entry: Running = { record: stored, controller, settled: new Promise((r) => (markSettled = r)), abandoned: false, progressDirty: false };
    this.running.set(id, entry);
    const startedAt = nowIso();
    const attempt = stored.attempt + 1;
    entry.record = {
      ...stored,
      state: 'running',
      attempt,
      startedAt,
      updatedAt: startedAt,
      attempts: [...stored.attempts, { attempt, startedAt }].slice(-20),
    };
    delete entry.record.finishedAt;
    const began = performance.now();
    try {
      await this.store.update(entry.record);
    } catch (err) {
      this.running.delete(id);
      markSettled();
      this.log.error({ err, job: id }, 'could not record the start of a job');
      return;
    }
    void this.appendEvent('job.started', entry.record);

    const context: JobContext<unknown> = {
      id,
      name: stored.name,
      input: stored.input,
      tenant: stored.tenant,
      attempt,
      ...(stored.scheduleId !== undefined ? { scheduleId: stored.scheduleId } : {}),
      ...(stored.progress ? { lastProgress: stored.progress } : {}),
      signal: controller.signal,
      log: this.log.child({ job: id, jobName: stored.name }),
      progress: (value, details) => this.reportProgress(entry, value, details),
    };
    let timeout: NodeJS.Timeout | undefined;
    let graceTimer: NodeJS.Timeout | undefined;
    const outcome = new Promise<{ ok: true; result: unknown } | { ok: false; error: unknown }>((resolve) => {
      Promise.resolve()
        .then(() => def.handler(context))
        .then(
          (result) => resolve({ ok: true, result }),
          (error) => resolve({ ok: false, error }),
        );
      if (def.timeoutMs !== undefined) {
        timeout = setTimeout(() => {
          controller.abort('timeout');
          // A handler that ignores its signal must not hold the slot for ever.
          graceTimer = setTimeout(
            () => {
              entry.abandoned = true;
              context.log.warn(
                { timeoutMs: def.timeoutMs },
                'job ignored its abort signal after a timeout; its slot is released and its outcome will be ignored',
              );
              resolve({ ok: false, error: Object.assign(new Error(`Job timed out after ${def.timeoutMs} ms and did not stop`), { code: 'timeout' }) });
            },
            Math.min(TIMEOUT_GRACE_MS, def.timeoutMs!),
          );
          graceTimer.unref();
        }, def.timeoutMs);
        timeout.unref();
      }
    });
    const result = await outcome;
    if (timeout) clearTimeout(timeout);
    if (graceTimer) clearTimeout(graceTimer);
    if (entry.progressTimer) clearTimeout(entry.progressTimer);
    const seconds = (performance.now() - began) / 1000;
    try {
      await this.finishAttempt(entry, def, result, seconds);
    } catch (err) {
      this.log.error({ err, job: id }, 'could not record the end of a job');
    } finally {
      this.running.delete(id);
      markSettled();
      this.pump();
    }
  }

  private async finishAttempt(
    entry: Running,
    def: Definition,
    outcome: { ok: true; result: unknown } | { ok: false; error: unknown },
    seconds: number,
  ): Promise<void> {
    const reason = entry.controller.signal.aborted ? String(entry.controller.signal.reason) : undefined;
    const at = nowIso();
    let job: JobRecord = { ...entry.record, updatedAt: at };
    const attempts = [...job.attempts];
    const last = { ...attempts[attempts.length - 1]!, finishedAt: at };
    attempts[attempts.length - 1] = last;
    job.attempts = attempts;
    let next: JobState;
    if (outcome.ok) {
      next = 'completed';
      job.result = outcome.result;
    } else if (reason === 'cancelled') {
      next = 'cancelled';
    } else if (reason === 'shutdown') {
      const error: JobError = { message: 'The process shut down while the job ran.', code: 'shutdown', attempt: job.attempt };
      last.error = error;
      job.error = error;
      // A clean shutdown is not the job's failure: it runs again after the next start, attempt not counted.
      next = def.onInterrupt === 'retry' ? 'queued' : 'interrupted';
      if (next === 'queued') {
        job.attempt -= 1;
        job.runAt = at;
      }
    } else {
      const error =
        reason === 'timeout'
          ? { message: `The attempt exceeded timeoutMs (${def.timeoutMs} ms).`, code: 'timeout', attempt: job.attempt }
          : errorOf(outcome.error, job.attempt);
      last.error = error;
      job.error = error;
      if (job.attempt < job.maxAttempts) {
        next = 'queued';
        job.runAt = new Date(Date.now() + retryDelayMs(job.attempt, def.backoff)).toISOString();
      } else {
        next = 'failed';
      }
      if (next === 'failed') this.log.warn({ job: job.id, jobName: job.name, attempt: job.attempt, err: outcome.error }, 'job failed');
    }
    job.state = next;
    if (terminalJobStates.has(next)) job.finishedAt = at;
    this.metrics.duration.observe({ plugin: this.plugin, job: job.name, state: next === 'queued' ? 'retry' : next }, seconds);
    await this.store.update(job);
    entry.record = job;
    if (next === 'queued') {
      void this.appendEvent(reason === 'shutdown' ? 'job.interrupted' : 'job.retrying', job);
      if (reason !== 'shutdown') this.addToQueue(job);
      return;
    }
    await this.finished(job);
  }

  private async finished(job: JobRecord): Promise<void> {
    this.metrics.finished.inc({ plugin: this.plugin, job: job.name, state: job.state });
    // Written before waiters wake, so whoever waited on the job finds its final event in the log.
    await this.appendEvent(`job.${job.state}`, job);
    if (job.scheduleId !== undefined) {
      const key = this.scheduleKey(job.tenant, job.scheduleId);
      if (this.activeBySchedule.get(key) === job.id) this.activeBySchedule.delete(key);
    }
    const waiting = this.waiters.get(job.id);
    if (waiting) {
      this.waiters.delete(job.id);
      for (const resolve of waiting) resolve(job);
    }
    this.finishedCount++;
    if (++this.sincePrune >= 16 || this.finishedCount > this.settings.maxFinished + PRUNE_BATCH) {
      this.sincePrune = 0;
      void this.prune();
    }
  }

  private reportProgress(entry: Running, value: number, details?: Record<string, unknown>): void {
    if (entry.abandoned || !Number.isFinite(value)) return;
    entry.record = { ...entry.record, progress: { value, details: details ?? entry.record.progress?.details ?? {}, at: nowIso() } };
    entry.progressDirty = true;
    if (entry.progressTimer) return;
    entry.progressTimer = setTimeout(() => {
      entry.progressTimer = undefined;
      if (!entry.progressDirty || !this.running.has(entry.record.id)) return;
      entry.progressDirty = false;
      void this.store.update(entry.record).catch((err) => this.log.error({ err, job: entry.record.id }, 'could not store job progress'));
      void this.appendEvent('job.progress', entry.record);
    }, PROGRESS_FLUSH_MS);
    entry.progressTimer.unref();
  }

  private appendEvent(type: string, job: JobRecord): Promise<unknown> {
    const data = {
      jobId: job.id,
      name: job.name,
      state: job.state,
      attempt: job.attempt,
      ...(job.progress ? { progress: job.progress } : {}),
      ...(job.error && job.state !== 'completed' && job.state !== 'running' ? { error: job.error } : {}),
      ...(job.scheduleId !== undefined ? { scheduleId: job.scheduleId } : {}),
    };
    return this.events
      .append(type, data, { tenant: job.tenant, subject: job.id })
      .catch((err) => this.log.error({ err, job: job.id }, 'could not append a job event'));
  }

  // ---- reading and cancelling -----------------------------------------------------------------

  get(id: string): JobRecord | undefined {
    return this.running.get(id)?.record ?? this.store.get(this.plugin, id);
  }

  list(options: ListJobsOptions = {}, tenant?: string): JobPage {
    const limit = Math.min(Math.max(options.limit ?? 50, 1), 1000);
    const states = options.state === undefined ? undefined : new Set(typeof options.state === 'string' ? [options.state] : options.state);
    const jobs: JobRecord[] = [];
    let next: string | undefined;
    for (const stored of this.store.newestFirst(this.plugin, options.cursor)) {
      const job = this.running.get(stored.id)?.record ?? stored;
      if (tenant !== undefined && job.tenant !== tenant) continue;
      if (options.tenant !== undefined && job.tenant !== options.tenant) continue;
      if (options.name !== undefined && job.name !== options.name) continue;
      if (options.scheduleId !== undefined && job.scheduleId !== options.scheduleId) continue;
      if (states && !states.has(job.state)) continue;
      if (jobs.length === limit) {
        next = jobs[jobs.length - 1]!.id;
        break;
      }
      jobs.push(job);
    }
    return next === undefined ? { jobs } : { jobs, next };
  }

  wait(id: string, signal?: AbortSignal): Promise<JobRecord> {
    const job = this.get(id);
    if (!job) return Promise.reject(new JobNotFoundError(id));
    if (terminalJobStates.has(job.state)) return Promise.resolve(job);
    return new Promise<JobRecord>((resolve, reject) => {
      let set = this.waiters.get(id);
      if (!set) this.waiters.set(id, (set = new Set()));
      const done = (record: JobRecord): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve(record);
      };
      const onAbort = (): void => {
        set!.delete(done);
        reject(signal!.reason instanceof Error ? signal!.reason : new Error('wait aborted'));
      };
      set.add(done);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  async cancel(id: string): Promise<JobRecord | undefined> {
    const running = this.running.get(id);
    if (running) {
      if (!running.record.cancelRequested) {
        running.record = { ...running.record, cancelRequested: true, updatedAt: nowIso() };
        await this.store.update(running.record);
      }
      running.controller.abort('cancelled');
      await Promise.race([running.settled, new Promise((r) => setTimeout(r, this.settings.cancelWaitMs).unref())]);
      return this.get(id);
    }
    const job = this.store.get(this.plugin, id);
    if (!job) return undefined;
    if (job.state !== 'queued') return job;
    this.removeFromQueue(job);
    const at = nowIso();
    const cancelled: JobRecord = { ...job, state: 'cancelled', cancelRequested: true, updatedAt: at, finishedAt: at };
    await this.store.update(cancelled);
    await this.finished(cancelled);
    return cancelled;
  }

  // ---- schedules ------------------------------------------------------------------------------

  private scheduleKey(tenant: string, id: string): string {
    return `${tenant}\u0000${id}`;
  }

  async schedule(id: string, spec: ScheduleSpec, jobName: string, input: unknown, options: ScheduleOptions = {}): Promise<ScheduleRecord> {
    const cadence = parseCadence(spec);
    const tenant = options.tenant ?? 'default';
    const existing = this.store.getSchedule(this.plugin, tenant, id);
    const now = new Date();
    const at = now.toISOString();
    const paused = spec.paused ?? false;
    const record: ScheduleRecord = {
      id,
      plugin: this.plugin,
      tenant,
      jobName,
      input,
      ...(cadence.cron !== undefined ? { cron: cadence.cron } : {}),
      ...(cadence.interval !== undefined ? { interval: cadence.interval, intervalMs: cadence.intervalMs! } : {}),
      ...(cadence.timezone !== undefined ? { timezone: cadence.timezone } : {}),
      catchUp: spec.catchUp ?? 'once',
      paused,
      nextRunAt: paused ? null : cadence.next(now, new Date(existing?.createdAt ?? at)).toISOString(),
      ...(existing?.lastRunAt ? { lastRunAt: existing.lastRunAt } : {}),
      ...(existing?.lastJobId ? { lastJobId: existing.lastJobId } : {}),
      skippedTicks: existing?.skippedTicks ?? 0,
      ...(existing?.lastSkippedAt ? { lastSkippedAt: existing.lastSkippedAt } : {}),
      createdAt: existing?.createdAt ?? at,
      updatedAt: at,
    };
    await this.store.putSchedule(record);
    this.cadences.set(this.scheduleKey(tenant, id), cadence);
    this.armSchedule(record);
    return record;
  }

  async updateSchedule(id: string, change: Partial<ScheduleSpec> & { input?: unknown }, tenant = 'default'): Promise<ScheduleRecord | undefined> {
    const current = this.store.getSchedule(this.plugin, tenant, id);
    if (!current) return undefined;
    const cadenceChanged = change.cron !== undefined || change.interval !== undefined || change.timezone !== undefined;
    const spec: ScheduleSpec = cadenceChanged
      ? {
          ...(change.cron !== undefined
            ? { cron: change.cron }
            : change.interval !== undefined
              ? {}
              : current.cron !== undefined
                ? { cron: current.cron }
                : {}),
          ...(change.interval !== undefined
            ? { interval: change.interval }
            : change.cron !== undefined
              ? {}
              : current.interval !== undefined
                ? { interval: current.interval }
                : {}),
          ...(change.timezone !== undefined
            ? { timezone: change.timezone }
            : current.timezone !== undefined && change.interval === undefined
              ? { timezone: current.timezone }
              : {}),
        }
      : {
          ...(current.cron !== undefined ? { cron: current.cron } : {}),
          ...(current.interval !== undefined ? { interval: current.interval } : {}),
          ...(current.timezone !== undefined ? { timezone: current.timezone } : {}),
        };
    const cadence = parseCadence(spec);
    const paused = change.paused ?? current.paused;
    const now = new Date();
    const record: ScheduleRecord = {
      ...current,
      ...(change.input !== undefined ? { input: change.input } : {}),
      catchUp: change.catchUp ?? current.catchUp,
      paused,
      updatedAt: now.toISOString(),
    };
    delete record.cron;
    delete record.interval;
    delete record.intervalMs;
    delete record.timezone;
    Object.assign(
      record,
      cadence.cron !== undefined ? { cron: cadence.cron } : {},
      cadence.interval !== undefined ? { interval: cadence.interval, intervalMs: cadence.intervalMs } : {},
      cadence.timezone !== undefined ? { timezone: cadence.timezone } : {},
    );
    record.nextRunAt = paused
      ? null
      : cadenceChanged || current.nextRunAt === null
        ? cadence.next(now, new Date(current.createdAt)).toISOString()
        : current.nextRunAt;
    await this.store.putSchedule(record);
    this.cadences.set(this.scheduleKey(tenant, id), cadence);
    this.armSchedule(record);
    return record;
  }

  getSchedule(id: string, tenant = 'default'): ScheduleRecord | undefined {
    return this.store.getSchedule(this.plugin, tenant, id);
  }

  listSchedules(tenant?: string): ScheduleRecord[] {
    return [...this.store.schedulesOf(this.plugin, tenant)];
  }

  async unschedule(id: string, tenant = 'default'): Promise<boolean> {
    const key = this.scheduleKey(tenant, id);
    const timer = this.scheduleTimers.get(key);
    if (timer) clearTimeout(timer);
    this.scheduleTimers.delete(key);
    this.cadences.delete(key);
    return this.store.removeSchedule(this.plugin, tenant, id);
  }

  async trigger(id: string, tenant = 'default'): Promise<{ job: JobRecord; started: boolean } | undefined> {
    const record = this.store.getSchedule(this.plugin, tenant, id);
    if (!record) return undefined;
    const active = this.activeJobOf(record);
    if (active) return { job: active, started: false };
    const job = await this.fire(record, 'manual');
    return { job, started: true };
  }

  private activeJobOf(record: ScheduleRecord): JobRecord | undefined {
    const jobId = this.activeBySchedule.get(this.scheduleKey(record.tenant, record.id));
    if (jobId === undefined) return undefined;
    const job = this.get(jobId);
    return job && !terminalJobStates.has(job.state) ? job : undefined;
  }

  private async fire(record: ScheduleRecord, why: 'tick' | 'manual' | 'catch-up'): Promise<JobRecord> {
    const job = await this.enqueueForSchedule(record);
    const at = nowIso();
    const updated: ScheduleRecord = {
      ...(this.store.getSchedule(this.plugin, record.tenant, record.id) ?? record),
      lastRunAt: at,
      lastJobId: job.id,
      updatedAt: at,
    };
    await this.store.putSchedule(updated);
    void this.events.append(
      'schedule.fired',
      { scheduleId: record.id, jobId: job.id, jobName: record.jobName, why },
      { tenant: record.tenant, subject: record.id },
    );
    return job;
  }

  private async enqueueForSchedule(record: ScheduleRecord): Promise<JobRecord> {
    const now = Date.now();
    const at = new Date(now).toISOString();
    const def = this.definitions.get(record.jobName);
    const job: JobRecord = {
      id: sortableId('job_', now),
      plugin: this.plugin,
      name: record.jobName,
      tenant: record.tenant,
      state: 'queued',
      input: record.input,
      attempt: 0,
      maxAttempts: def?.maxAttempts ?? 1,
      attempts: [],
      scheduleId: record.id,
      createdAt: at,
      updatedAt: at,
      runAt: at,
    };
    await this.store.insert(job, () => undefined);
    this.activeBySchedule.set(this.scheduleKey(record.tenant, record.id), job.id);
    void this.appendEvent('job.queued', job);
    this.addToQueue(job);
    this.pump();
    return job;
  }

  /** (Re)arm a schedule's timer for its `nextRunAt`. */
  private armSchedule(record: ScheduleRecord): void {
    const key = this.scheduleKey(record.tenant, record.id);
    const old = this.scheduleTimers.get(key);
    if (old) clearTimeout(old);
    this.scheduleTimers.delete(key);
    if (!this.started || this.stopping || record.paused || record.nextRunAt === null) return;
    const wait = Date.parse(record.nextRunAt) - Date.now();
    const timer = setTimeout(
      () => {
        this.scheduleTimers.delete(key);
        if (wait > MAX_TIMER_MS) {
          this.armSchedule(record);
          return;
        }
        void this.tick(record.tenant, record.id).catch((err) => this.log.error({ err, schedule: record.id }, 'schedule tick failed'));
      },
      Math.min(MAX_TIMER_MS, Math.max(0, wait)),
    );
    timer.unref();
    this.scheduleTimers.set(key, timer);
  }

  private async tick(tenant: string, id: string, why: 'tick' | 'catch-up' = 'tick'): Promise<void> {
    const record = this.store.getSchedule(this.plugin, tenant, id);
    if (!record || record.paused || this.stopping) return;
    const cadence = this.cadences.get(this.scheduleKey(tenant, id)) ?? parseCadence(record);
    this.cadences.set(this.scheduleKey(tenant, id), cadence);
    const now = new Date();
    const next = cadence.next(now, new Date(record.createdAt)).toISOString();
    if (this.activeJobOf(record)) {
      // Never overlap: the previous run is still going, so this tick is skipped and recorded.
      const skipped: ScheduleRecord = {
        ...record,
        nextRunAt: next,
        skippedTicks: record.skippedTicks + 1,
        lastSkippedAt: now.toISOString(),
        updatedAt: now.toISOString(),
      };
      await this.store.putSchedule(skipped);
      void this.events.append('schedule.skipped', { scheduleId: id, runningJobId: this.activeJobOf(record)!.id }, { tenant, subject: id });
      this.armSchedule(skipped);
      return;
    }
    await this.store.putSchedule({ ...record, nextRunAt: next, updatedAt: now.toISOString() });
    await this.fire(record, why);
    const latest = this.store.getSchedule(this.plugin, tenant, id);
    if (latest) this.armSchedule(latest);
  }

  // ---- lifecycle ------------------------------------------------------------------------------

  /** Recover stored jobs (running ones were interrupted), arm schedules, start queued work. */
  async start(): Promise<void> {
    this.started = true;
    const recovered: JobRecord[] = [];
    for (const job of this.store.all(this.plugin)) {
      if (job.state === 'queued') {
        this.addToQueue(job);
        if (job.scheduleId !== undefined) this.activeBySchedule.set(this.scheduleKey(job.tenant, job.scheduleId), job.id);
      } else if (job.state === 'running') {
        recovered.push(job);
      }
    }
    for (const job of recovered) await this.recoverInterrupted(job);
    this.finishedCount = this.store.countFinished(this.plugin);
    for (const name of this.queued.keys()) {
      if (!this.definitions.has(name))
        this.log.warn({ jobName: name, queued: this.queued.get(name)!.length }, 'queued jobs have no definition in this version of the plugin; they wait');
    }
    const now = Date.now();
    for (const record of this.store.schedulesOf(this.plugin)) {
      try {
        this.cadences.set(this.scheduleKey(record.tenant, record.id), parseCadence(record));
      } catch (err) {
        this.log.error({ err, schedule: record.id }, 'stored schedule has an invalid cadence; it stays paused');
        continue;
      }
      if (!record.paused && record.nextRunAt !== null && Date.parse(record.nextRunAt) <= now) {
        // Missed while the process was down: once now, or straight to the next tick.
        if (record.catchUp === 'once') {
          void this.tick(record.tenant, record.id, 'catch-up').catch((err) => this.log.error({ err, schedule: record.id }, 'schedule catch-up failed'));
          continue;
        }
        const cadence = this.cadences.get(this.scheduleKey(record.tenant, record.id))!;
        const skipped = { ...record, nextRunAt: cadence.next(new Date(now), new Date(record.createdAt)).toISOString(), updatedAt: new Date(now).toISOString() };
        await this.store.putSchedule(skipped);
        this.armSchedule(skipped);
        continue;
      }
      this.armSchedule(record);
    }
    this.pump();
    if (this.finishedCount > this.settings.maxFinished) void this.prune();
  }

  private async recoverInterrupted(job: JobRecord): Promise<void> {
    const def = this.definitions.get(job.name);
    const at = nowIso();
    const error: JobError = { message: 'The process stopped while the job ran.', code: 'interrupted', attempt: job.attempt };
    const attempts = job.attempts.map((a, i) => (i === job.attempts.length - 1 ? { ...a, finishedAt: at, error } : a));
    const interruptions = attempts.slice(-MAX_INTERRUPTIONS).filter((a) => a.error?.code === 'interrupted').length;
    const retry = def !== undefined && def.onInterrupt === 'retry' && interruptions < MAX_INTERRUPTIONS;
    const next: JobRecord = retry
      ? { ...job, state: 'queued', attempt: job.attempt - 1, error, attempts, runAt: at, updatedAt: at }
      : { ...job, state: 'interrupted', error, attempts, updatedAt: at, finishedAt: at };
    await this.store.update(next);
    if (retry) {
      void this.appendEvent('job.interrupted', next);
      this.addToQueue(next);
      if (next.scheduleId !== undefined) this.activeBySchedule.set(this.scheduleKey(next.tenant, next.scheduleId), next.id);
    } else {
      await this.finished(next);
    }
  }

  /** Abort running jobs and wait for them, at most `timeoutMs`; pending progress is written first. */
  async stop(timeoutMs: number): Promise<boolean> {
    this.stopping = true;
    if (this.queueTimer) clearTimeout(this.queueTimer);
    for (const timer of this.scheduleTimers.values()) clearTimeout(timer);
    this.scheduleTimers.clear();
    const running = [...this.running.values()];
    for (const r of running) r.controller.abort('shutdown');
    if (running.length === 0) return true;
    let timer: NodeJS.Timeout | undefined;
    const done = await Promise.race([
      Promise.all(running.map((r) => r.settled)).then(() => true),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), timeoutMs);
      }),
    ]);
    if (timer) clearTimeout(timer);
    return done;
  }

  counts(): Array<{ plugin: string; job: string; queued: number; running: number }> {
    const names = new Set([...this.definitions.keys(), ...this.queued.keys()]);
    return [...names].map((job) => ({ plugin: this.plugin, job, queued: this.queued.get(job)?.length ?? 0, running: this.runningOf(job) }));
  }

  summary(): { queued: number; running: number; schedules: number } {
    let queued = 0;
    for (const list of this.queued.values()) queued += list.length;
    let schedules = 0;
    for (const _ of this.store.schedulesOf(this.plugin)) schedules++;
    return { queued, running: this.running.size, schedules };
  }

  private async prune(): Promise<void> {
    if (this.pruning) return;
    this.pruning = true;
    try {
      for (;;) {
        const removed = await this.store.prune(this.plugin, {
          cutoffMs: Date.now() - this.settings.retentionMs,
          keep: this.settings.maxFinished,
          batch: PRUNE_BATCH,
          finishedCount: this.finishedCount,
        });
        this.finishedCount -= removed;
        if (removed < PRUNE_BATCH) break;
        await new Promise((r) => setImmediate(r));
      }
    } catch (err) {
      this.log.error({ err }, 'job retention failed');
    } finally {
      this.pruning = false;
    }
  }

  /** The `ctx.jobs` object: every tenant when `tenant` is undefined, else that tenant only. */
  view(tenant?: string): JobsService & { tenant(name: string): JobsService } {
    const self = this;
    const scheduleTenant = tenant ?? 'default';
    const own = (job: JobRecord | undefined): JobRecord | undefined => (job && (tenant === undefined || job.tenant === tenant) ? job : undefined);
    return {
      define: (name, handler, options) => self.define(name, handler as JobHandler<any, any>, options),
      enqueue: (name, input, options = {}) =>
        self.enqueue(name, input, { ...options, tenant: tenant ?? options.tenant ?? 'default' }) as Promise<JobRecord<any>>,
      get: (id) => own(self.get(id)),
      list: (options) => self.list(options, tenant),
      wait: (id, signal) => (own(self.get(id)) ? self.wait(id, signal) : Promise.reject(new JobNotFoundError(id))),
      cancel: async (id) => (own(self.get(id)) ? self.cancel(id) : undefined),
      schedule: (id, spec, jobName, input, options = {}) =>
        self.schedule(id, spec, jobName, input, { tenant: tenant ?? options.tenant ?? 'default' }) as Promise<ScheduleRecord<any>>,
      updateSchedule: (id, change) => self.updateSchedule(id, change, scheduleTenant),
      getSchedule: (id) => self.getSchedule(id, scheduleTenant),
      listSchedules: (options = {}) => self.listSchedules(tenant ?? options.tenant),
      trigger: (id) => self.trigger(id, scheduleTenant),
      unschedule: (id) => self.unschedule(id, scheduleTenant),
      tenant: (name: string) => self.view(name),
    };
  }
}
