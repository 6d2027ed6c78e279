import type { EventLog, JobsService, Logger, LoggedEvent } from 'tessera-runtime/plugin';
import type { SharedQueue, WorkItem } from './queue.js';

export interface WorkerLoopOptions {
  id: string;
  tiers: readonly number[];
  concurrency: number;
  leaseMs: number;
  pollMs: number;
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

/** An event of the worker's local job as the service's job would have appended it: its job id is the service's. */
function relayed(e: LoggedEvent, localId: string, originId: string): { type: string; data: unknown } {
  const data = e.data as Record<string, unknown> | null;
  if (data && typeof data === 'object' && !Array.isArray(data) && data.jobId === localId) return { type: e.type, data: { ...data, jobId: originId } };
  return { type: e.type, data: e.data };
}

/**
 * A `tessera worker` process's loop: claims items of its tiers from the shared queue (up to
 * `concurrency` at once), runs each as a job of its own `ctx.jobs` (the same handlers as the
 * service), renews the lease every third of it while passing the job's events back, and writes the
 * outcome. A lease lost (the service cancelled the item, or this process stalled past the lease and
 * another worker took it) cancels the local job; its outcome is then not written.
 */
export class WorkerLoop {
  private active = 0;
  readonly done: string[] = [];

  constructor(
    private readonly queue: SharedQueue,
    private readonly jobs: JobsService & { tenant(name: string): JobsService },
    private readonly events: EventLog,
    private readonly log: Logger,
    private readonly o: WorkerLoopOptions,
  ) {}

  async run(signal: AbortSignal): Promise<void> {
    const running = new Set<Promise<void>>();
    while (!signal.aborted) {
      const item = this.active < this.o.concurrency ? this.queue.claim(this.o.id, this.o.tiers, this.o.leaseMs) : undefined;
      if (!item) {
        await sleep(this.o.pollMs, signal);
        continue;
      }
      this.active++;
      const p = this.work(item, signal).finally(() => {
        this.active--;
        running.delete(p);
      });
      running.add(p);
    }
    await Promise.allSettled(running);
  }

  private async work(item: WorkItem, stop: AbortSignal): Promise<void> {
    const jobs = this.jobs.tenant(item.tenant);
    const recordId = (item.input as { snapshot?: { id?: string } } | null)?.snapshot?.id;
    // The local job names its item, so that its run finds the tenant settings the item carries
    // (read from the queue, never copied into this process's store).
    const input = item.input && typeof item.input === 'object' && !Array.isArray(item.input) ? { ...item.input, workItem: item.id } : item.input;
    const local = await jobs.enqueue(item.name, input, { key: `work:${item.id}:${item.attempts}` });
    this.log.info({ item: item.id, job: local.id, name: item.name, tier: item.tier, attempt: item.attempts }, 'worker claimed a job');
    const pending: Array<{ type: string; data: unknown }> = [];
    const unsubscribe = this.events.subscribe((e) => {
      // The local job's events, and those of a record the item carries under the service's id (a ticket's `snapshot`).
      if ((e.subject === local.id || e.subject === recordId) && !e.type.startsWith('job.')) pending.push(relayed(e, local.id, item.origin.jobId));
    });
    let lost = false;
    let cleanup = () => {};
    const renew = setInterval(
      () => {
        if (lost) return;
        if (!this.queue.renew(item.id, this.o.id, this.o.leaseMs, pending.splice(0))) {
          lost = true;
          void jobs.cancel(local.id);
        }
      },
      Math.max(50, Math.floor(this.o.leaseMs / 3)),
    );
    try {
      let onStop = () => {};
      const stopped = new Promise<undefined>((resolve) => {
        onStop = () => resolve(undefined);
        if (stop.aborted) resolve(undefined);
        stop.addEventListener('abort', onStop, { once: true });
      });
      cleanup = () => stop.removeEventListener('abort', onStop);
      const final = await Promise.race([jobs.wait(local.id), stopped]);
      if (!final) {
        // Shutting down: the item goes back to the queue at once for another worker (not after the lease).
        await jobs.cancel(local.id);
        if (!lost) this.queue.release(item.id, this.o.id);
        return;
      }
      if (lost) return;
      const outcome =
        final.state === 'completed'
          ? { result: final.result }
          : { error: { message: final.error?.message ?? `the job ended ${final.state}`, ...(final.error?.code ? { code: final.error.code } : {}) } };
      if (!this.queue.finish(item.id, this.o.id, outcome, pending.splice(0))) {
        this.log.warn({ item: item.id }, 'the lease was lost before the outcome was written');
        return;
      }
      this.done.push(item.id);
    } finally {
      clearInterval(renew);
      unsubscribe();
      cleanup();
    }
  }
}
