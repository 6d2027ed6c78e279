import type { EventLog, JobContext, JobHandler } from 'tessera-runtime/plugin';
import type { SharedQueue, WorkItem } from './queue.js';

/** A job a worker failed (or lost for good): the service's job fails with the worker's message. */
export class OffloadedJobFailed extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = 'OffloadedJobFailed';
  }
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });

/**
 * What an item carries of its tenant's settings: `take` on the service when the item is put,
 * `apply` on the worker around the run of the item's job; `items` is the queue a worker reads an
 * item's settings from (the local job's input names its item as `workItem`).
 */
export interface Carry {
  take(tenant: string): unknown;
  apply<T>(tenant: string, settings: unknown, fn: () => T): T;
  items?: SharedQueue;
}

/**
 * The service's side of the shared queue: a job of an offloaded tier is put on the queue, and the
 * service's job waits for a worker to finish it, relaying the worker's events into its own log
 * (so telemetry and the console see one job) and ending with the worker's result or error. The item
 * id and the count of relayed events are kept in the job's progress, so a service restarted
 * mid-wait resumes waiting on the same item instead of queuing the work twice.
 */
export class Offload {
  constructor(
    private readonly queue: SharedQueue | undefined,
    private readonly o: { tiers: readonly number[]; pollMs: number; maxAttempts: number },
    private readonly events: EventLog,
    private readonly carry?: Carry,
  ) {}

  applies(tier: number | undefined): boolean {
    return this.queue !== undefined && tier !== undefined && this.o.tiers.includes(tier);
  }

  /** Runs `handler` here, inside the settings of the item the job came from (a worker's run), if any. */
  local<I>(job: JobContext<I>, handler: JobHandler<I>): ReturnType<JobHandler<I>> {
    const id = (job.input as { workItem?: unknown } | null | undefined)?.workItem;
    const item = typeof id === 'string' ? this.carry?.items?.get(id) : undefined;
    if (!this.carry || !item || item.tenant !== job.tenant || item.settings === undefined) return handler(job);
    return this.carry.apply(job.tenant, item.settings, () => handler(job));
  }

  async run(job: JobContext, tier: number): Promise<unknown> {
    const queue = this.queue!;
    const last = job.lastProgress?.details as { workItem?: string; relayed?: number } | undefined;
    let item: WorkItem | undefined = last?.workItem ? queue.get(last.workItem) : undefined;
    let relayed = item ? (last?.relayed ?? 0) : 0;
    item ??= await queue.put({
      name: job.name,
      tenant: job.tenant,
      tier,
      input: job.input,
      origin: { jobId: job.id },
      maxAttempts: this.o.maxAttempts,
      ...(this.carry ? { settings: this.carry.take(job.tenant) } : {}),
    });
    const id = item.id;
    job.progress(0, { workItem: id, relayed, tier });
    for (;;) {
      if (job.signal.aborted) {
        // On shutdown the worker keeps going: the job is queued again and resumes waiting on this item.
        if (job.signal.reason !== 'shutdown') queue.cancel(id);
        throw new Error(`stopped while a worker held the job (${String(job.signal.reason)})`);
      }
      const now = queue.get(id);
      if (!now) throw new OffloadedJobFailed(`the work item ${id} disappeared from the shared queue`, 'worker_lost');
      for (const e of now.events.slice(relayed)) {
        await this.events.append(e.type, e.data, { tenant: job.tenant, subject: job.id });
        relayed++;
      }
      if (relayed > 0) job.progress(0, { workItem: id, relayed, tier, worker: now.worker ?? null });
      if (now.state === 'completed') {
        await queue.remove(id);
        return now.result;
      }
      if (now.state === 'failed' || now.state === 'cancelled') {
        await queue.remove(id);
        throw new OffloadedJobFailed(now.error?.message ?? `the work item was ${now.state}`, now.error?.code);
      }
      await sleep(this.o.pollMs, job.signal);
    }
  }
}

/**
 * Wraps a job handler so that jobs of the offloaded tiers run on `tessera worker` processes:
 * `ctx.jobs.define('ticket', offloadable(offload, (input) => input.tier, handler))`. On a worker the
 * same name runs `handler` itself (the worker's plugin has no offloaded tiers).
 */
export function offloadable<I>(offload: Offload, tierOf: (input: I) => number | undefined, handler: JobHandler<I>): JobHandler<I> {
  return (job) => {
    const tier = tierOf(job.input);
    return offload.applies(tier) ? offload.run(job as JobContext, tier!) : offload.local(job, handler);
  };
}
