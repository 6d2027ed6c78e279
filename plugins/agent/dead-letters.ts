import {
  sortableId,
  terminalJobStates,
  type EventLog,
  type JobHandler,
  type JobRecord,
  type LoggedEvent,
  type PluginJobs,
  type StoreNamespace,
} from 'tessera-runtime/plugin';
import { errors } from './errors.js';
import { redact, redactValue } from './redact.js';

interface StoredDeadLetter {
  id: string;
  tenant: string;
  jobId: string;
  jobName: string;
  error: { message: string; code: string };
  stack: string | null;
  attempts: Array<{ attempt: number; startedAt: string; finishedAt?: string; error?: { message: string; code: string }; stack?: string }>;
  /** The job's input as it was given (kept to replay it); shown redacted. */
  input: unknown;
  firstFailureAt: string;
  lastFailureAt: string;
  replayOf: string | null;
  replays: Array<{ jobId: string; at: string }>;
  /** What the job's owner keeps with the failure (a ticket job: its last diff and test output), secrets redacted. */
  details?: unknown;
}

export type DeadLetterView = Omit<StoredDeadLetter, 'tenant'> & { replayState: string | null };

/** Job input marker: the dead-letter record a replayed job comes from. */
export interface Replayable {
  replayOf?: string;
}

/**
 * The dead-letter queue: every agent job that fails for good (its attempts spent, or a timeout on
 * the last one) is quarantined here with its error, the stack of each failed attempt, its attempt
 * history and its input (secrets redacted). A replay enqueues the same job name and input as a new
 * job (a clean state: nothing of the failed run is reused) and links both records.
 */
export class DeadLetters {
  private readonly db;
  private readonly stacks = new Map<string, string>();
  private readonly details = new Map<string, unknown>();

  constructor(
    store: StoreNamespace,
    private readonly jobs: PluginJobs,
    private readonly events: EventLog,
    private readonly secretsOf: (tenant: string) => Array<string | undefined>,
  ) {
    this.db = store.db('dead-letters');
  }

  /**
   * Wraps a job handler so the stack of each failed attempt is kept for the record, with what
   * `detailsOf` tells about the failure (read after the handler failed).
   */
  guard<I, R>(handler: JobHandler<I, R>, detailsOf?: (job: { id: string; tenant: string; input: I }, err: unknown) => unknown): JobHandler<I, R> {
    return async (job) => {
      try {
        return await handler(job);
      } catch (err) {
        const stack = err instanceof Error && err.stack ? err.stack : String(err);
        this.stacks.set(`${job.id}:${job.attempt}`, redact(stack, this.secretsOf(job.tenant)));
        const details = detailsOf?.(job, err);
        if (details !== undefined) this.details.set(job.id, redactValue(details, this.secretsOf(job.tenant)));
        throw err;
      }
    };
  }

  /** Follows the event log's `job.failed` entries (call once, at start). */
  listen(): () => void {
    return this.events.subscribe(
      (event) =>
        void this.quarantine(event).catch((err: Error) => {
          // A job failing while the service stops may find the event log closed: its failure stays in the job record.
          if (!/ is closed/.test(err.message)) throw err;
        }),
      { types: ['job.failed'] },
    );
  }

  private async quarantine(event: LoggedEvent): Promise<void> {
    const job = event.subject ? (this.jobs.get(event.subject) as JobRecord<Replayable> | undefined) : undefined;
    if (!job || job.state !== 'failed') return;
    const secrets = this.secretsOf(job.tenant);
    const attempts = job.attempts.map((a) => {
      const stack = this.stacks.get(`${job.id}:${a.attempt}`);
      this.stacks.delete(`${job.id}:${a.attempt}`);
      return {
        attempt: a.attempt,
        startedAt: a.startedAt,
        ...(a.finishedAt ? { finishedAt: a.finishedAt } : {}),
        ...(a.error ? { error: { message: redact(a.error.message, secrets), code: a.error.code } } : {}),
        ...(stack ? { stack } : {}),
      };
    });
    const last = attempts.at(-1);
    const record: StoredDeadLetter = {
      id: sortableId('dlq_'),
      tenant: job.tenant,
      jobId: job.id,
      jobName: job.name,
      error: { message: redact(job.error?.message ?? 'failed', secrets), code: job.error?.code ?? 'error' },
      stack: last?.stack ?? null,
      attempts,
      input: job.input,
      firstFailureAt: attempts.find((a) => a.error)?.finishedAt ?? job.finishedAt ?? job.updatedAt,
      lastFailureAt: job.finishedAt ?? job.updatedAt,
      replayOf: job.input?.replayOf ?? null,
      replays: [],
      ...(this.details.has(job.id) ? { details: this.details.get(job.id) } : {}),
    };
    this.details.delete(job.id);
    await this.db.put([job.tenant, record.id], record);
    await this.events.append(
      'dlq.quarantined',
      { dlqId: record.id, jobId: job.id, jobName: job.name, error: record.error },
      { tenant: job.tenant, subject: job.id },
    );
  }

  list(tenant: string, options: { limit: number; after?: string | undefined; jobName?: string | undefined }): { records: DeadLetterView[]; next?: string } {
    const out: DeadLetterView[] = [];
    const start = options.after ? [tenant, options.after] : [tenant, '\uffff'];
    for (const { value } of this.db.getRange({ start, end: [tenant], reverse: true })) {
      const r = value as StoredDeadLetter;
      if (options.after && r.id === options.after) continue;
      if (options.jobName && r.jobName !== options.jobName) continue;
      out.push(this.view(r));
      if (out.length > options.limit) break;
    }
    const more = out.length > options.limit;
    const page = out.slice(0, options.limit);
    return more ? { records: page, next: page.at(-1)!.id } : { records: page };
  }

  get(tenant: string, id: string): DeadLetterView {
    const r = this.db.get([tenant, id]) as StoredDeadLetter | undefined;
    if (!r) throw errors.dlq_not_found({ id });
    return this.view(r);
  }

  count(): number {
    return this.db.getCount();
  }

  async replay(tenant: string, id: string): Promise<{ dlqId: string; job: { id: string; state: string } }> {
    const r = this.db.get([tenant, id]) as StoredDeadLetter | undefined;
    if (!r) throw errors.dlq_not_found({ id });
    const lastReplay = r.replays.at(-1);
    if (lastReplay) {
      const running = this.jobs.get(lastReplay.jobId);
      if (running && !terminalJobStates.has(running.state)) throw errors.replay_running({ id, jobId: running.id });
    }
    const input = { ...(r.input as Record<string, unknown>), replayOf: r.id };
    // The key makes a double-click one replay; `active` lets a later replay run once this one ended.
    const job = await this.jobs.tenant(tenant).enqueue(r.jobName, input, { key: `replay:${r.id}`, keyScope: 'active' });
    if (!r.replays.some((x) => x.jobId === job.id)) {
      r.replays.push({ jobId: job.id, at: new Date().toISOString() });
      await this.db.put([tenant, r.id], r);
      await this.events.append('dlq.replayed', { dlqId: r.id, jobId: job.id }, { tenant, subject: job.id });
    }
    return { dlqId: r.id, job: { id: job.id, state: job.state } };
  }

  private view(r: StoredDeadLetter): DeadLetterView {
    const { tenant, ...rest } = r;
    const last = r.replays.at(-1);
    return {
      ...rest,
      input: redactValue(r.input, this.secretsOf(tenant)),
      replayState: last ? (this.jobs.get(last.jobId)?.state ?? 'expired') : null,
    };
  }
}
