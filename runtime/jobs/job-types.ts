import type { Logger } from 'pino';

/**
 * `queued` (waiting for a slot or for its retry delay), `running`, then one of the terminal states.
 * `interrupted`: the process stopped (crash or shutdown) while the job ran and its definition does
 * not retry it.
 */
export type JobState = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled' | 'interrupted';

export const terminalJobStates: ReadonlySet<JobState> = new Set(['completed', 'failed', 'cancelled', 'interrupted']);

export interface JobProgress {
  /** The plugin's own measure; by convention a fraction in [0, 1] when the total is known. */
  value: number;
  /** Free-form counters (`{fetched, indexed, skipped}`), shown as they were last reported. */
  details: Record<string, unknown>;
  at: string;
}

export interface JobError {
  message: string;
  /** The error's `code` when it had one (`TesseraError`), else `timeout`, `interrupted`, `shutdown` or `error`. */
  code: string;
  attempt: number;
}

export interface JobAttempt {
  attempt: number;
  startedAt: string;
  finishedAt?: string;
  error?: JobError;
}

/** A job as stored and as `get`/`list` return it. */
export interface JobRecord<Input = unknown, Result = unknown> {
  /** Sorts by creation time. */
  id: string;
  plugin: string;
  name: string;
  tenant: string;
  /** Idempotency key given to `enqueue`. */
  key?: string;
  state: JobState;
  input: Input;
  /** Attempts started so far (the running one included). */
  attempt: number;
  maxAttempts: number;
  progress?: JobProgress;
  result?: Result;
  /** The last failure (kept when a retry later succeeds, so a flaky job shows why it retried). */
  error?: JobError;
  /** Every attempt, newest last, at most the last 20. */
  attempts: JobAttempt[];
  /** Set when the job was enqueued by a schedule. */
  scheduleId?: string;
  /** Set when cancellation was asked for while it ran. */
  cancelRequested?: boolean;
  createdAt: string;
  updatedAt: string;
  /** When it may start: later than `createdAt` while it waits out a retry delay. */
  runAt: string;
  startedAt?: string;
  finishedAt?: string;
}

export interface BackoffOptions {
  /** `exponential`: delayMs, 2×, 4×... capped at maxDelayMs; `fixed`: delayMs each time. @default "exponential" */
  type?: 'fixed' | 'exponential';
  /** @default 1000 */
  delayMs?: number;
  /** @default 300000 */
  maxDelayMs?: number;
}

export interface JobDefinitionOptions {
  /** Jobs of this name running at once in this process; a function is read each time a slot frees. @default 1 */
  concurrency?: number | (() => number);
  retry?: {
    /** Attempts in all, the first included. @default 1 (no retry) */
    attempts?: number;
    backoff?: BackoffOptions;
  };
  /** The attempt is aborted (signal reason `timeout`) and counted as failed after this long. */
  timeoutMs?: number;
  /**
   * A job found running at start-up (the process died under it) or stopped by shutdown: `retry`
   * queues it again (its attempts permitting), `fail` leaves it `interrupted`. @default "retry"
   */
  onInterrupt?: 'retry' | 'fail';
}

/** What a job handler receives. */
export interface JobContext<Input = unknown> {
  readonly id: string;
  readonly name: string;
  readonly input: Input;
  readonly tenant: string;
  /** 1 for the first attempt. */
  readonly attempt: number;
  /** Set when a schedule enqueued the job. */
  readonly scheduleId?: string;
  /** The progress last reported, by this attempt or an earlier one (resume from it). */
  readonly lastProgress?: JobProgress;
  /** Aborted on cancel (reason `cancelled`), timeout (`timeout`) and shutdown (`shutdown`). */
  readonly signal: AbortSignal;
  readonly log: Logger;
  /** Report progress; stored at most a few times a second, and always before the job ends. */
  progress(value: number, details?: Record<string, unknown>): void;
}

export type JobHandler<Input = unknown, Result = unknown> = (job: JobContext<Input>) => Promise<Result> | Result;

export interface EnqueueOptions {
  /**
   * Idempotency key: enqueueing again with the same key returns the existing job instead of a new
   * one (a redelivered webhook, a double click).
   */
  key?: string;
  /** `all` (default): any job still stored with the key counts. `active`: only a queued or running one. */
  keyScope?: 'all' | 'active';
  /** @default "default" */
  tenant?: string;
  /** Wait this long before the first attempt. */
  delayMs?: number;
}

export interface ListJobsOptions {
  name?: string;
  state?: JobState | readonly JobState[];
  tenant?: string;
  scheduleId?: string;
  /** @default 50, at most 1000 */
  limit?: number;
  /** The `next` cursor of the previous page. */
  cursor?: string;
}

export interface JobPage {
  jobs: JobRecord[];
  /** Pass as `cursor` for the next (older) page; absent on the last page. */
  next?: string;
}

/** How often a schedule fires: a cron expression (croner syntax) or an interval. */
export interface ScheduleSpec {
  cron?: string;
  /** `<n>ms|s|m|h|d` (`"15m"`) or milliseconds. */
  interval?: string | number;
  /** IANA zone for `cron`, e.g. `Europe/Paris`. @default UTC */
  timezone?: string;
  /** A tick missed while the process was down: run it once at start, or skip to the next. @default "once" */
  catchUp?: 'once' | 'skip';
  paused?: boolean;
}

export interface ScheduleRecord<Input = unknown> {
  id: string;
  plugin: string;
  tenant: string;
  jobName: string;
  input: Input;
  cron?: string;
  /** As given, normalised (`"15m"`). */
  interval?: string;
  intervalMs?: number;
  timezone?: string;
  catchUp: 'once' | 'skip';
  paused: boolean;
  /** Null while paused. */
  nextRunAt: string | null;
  lastRunAt?: string;
  lastJobId?: string;
  /** Ticks skipped because the previous run was still going (schedules never overlap themselves). */
  skippedTicks: number;
  lastSkippedAt?: string;
  createdAt: string;
  updatedAt: string;
}

export interface ScheduleOptions {
  /** @default "default" */
  tenant?: string;
}

/** `ctx.jobs`: durable background jobs and schedules of one plugin. */
export interface JobsService {
  /** Register the handler of a job name (in `setup`); jobs of unknown names stay queued. */
  define<Input = unknown, Result = unknown>(name: string, handler: JobHandler<Input, Result>, options?: JobDefinitionOptions): void;
  /** Store a job (durably: it survives a crash once this resolves) and queue it. */
  enqueue<Input = unknown>(name: string, input: Input, options?: EnqueueOptions): Promise<JobRecord<Input>>;
  get(id: string): JobRecord | undefined;
  /** Newest first. */
  list(options?: ListJobsOptions): JobPage;
  /** Resolves when the job reaches a terminal state (or the signal aborts). */
  wait(id: string, signal?: AbortSignal): Promise<JobRecord>;
  /** Cancel a queued job at once; abort a running one and wait (briefly) for it to stop. */
  cancel(id: string): Promise<JobRecord | undefined>;
  /** Create or replace a schedule; its next run is computed from now. */
  schedule<Input = unknown>(id: string, spec: ScheduleSpec, jobName: string, input: Input, options?: ScheduleOptions): Promise<ScheduleRecord<Input>>;
  /** Change a schedule's cadence, input or pause state. */
  updateSchedule(id: string, change: Partial<ScheduleSpec> & { input?: unknown }): Promise<ScheduleRecord | undefined>;
  getSchedule(id: string): ScheduleRecord | undefined;
  listSchedules(options?: { tenant?: string }): ScheduleRecord[];
  /**
   * Run a schedule now. While a job of it is queued or running, that job is returned instead
   * (`started: false`): a schedule never runs twice at once.
   */
  trigger(id: string): Promise<{ job: JobRecord; started: boolean } | undefined>;
  unschedule(id: string): Promise<boolean>;
}
