import type { JobContext, JobHandler } from 'tessera-runtime/plugin';
import { offloadable, OffloadedJobFailed, type Offload } from '../worker/offload.js';
import { recordIdOf } from './runner.js';
import { TicketCancelled, type TicketJob, type TicketJobInput, type TicketStore } from './ticket-store.js';

/** A ticket job's input as it goes on the shared queue: the record travels with it (a worker has its own store). */
export interface OffloadedTicketInput extends TicketJobInput {
  snapshot?: TicketJob;
  /** On a worker: the queue item the job came from (whose tenant settings the run uses). */
  workItem?: string;
}

/** The tier a ticket job is known to run at before it starts: the `tier` of its remediation options. */
export const ticketTierOf = (input: TicketJobInput): number | undefined => input.options?.tier;

/**
 * The `ticket` job's handler with offloading (docs/agent-api.md, "Workers"). In the service, a job
 * whose tier is in `workers.tiers` goes to the shared queue with its record (`snapshot`) and the
 * record's id; the service's job waits, relaying the worker's `ticket.*` events live, and when the
 * worker's run ends the record it returns replaces the service's (so `GET /api/v1/jobs/{id}` shows
 * the attempts, diff, tests and pull request). A worker's failure fails the service's record with
 * the worker's error. On a worker (which never offloads), a `snapshot` is adopted into the worker's
 * own store before the handler runs, and the final record is returned with the result.
 */
export function offloadedTickets(store: TicketStore, offload: Offload, handler: JobHandler<TicketJobInput>): JobHandler<TicketJobInput> {
  const local: JobHandler<OffloadedTicketInput> = async (job) => {
    const { snapshot, workItem: _item, ...input } = job.input;
    if (!snapshot) return handler({ ...job, input });
    if (!store.get(job.tenant, snapshot.id)) await store.adopt({ ...snapshot, tenant: job.tenant });
    const result = (await handler({ ...job, input })) as Record<string, unknown>;
    return { ...result, record: store.get(job.tenant, snapshot.id) };
  };
  const remote: JobHandler<TicketJobInput> = async (job) => {
    const id = recordIdOf({ store }, job);
    const { record } = await store.ensure(job.tenant, id, job.input.ticket, job.input.user ?? 'anonymous', job.input.options);
    const input: OffloadedTicketInput = { ...job.input, jobId: id, snapshot: record };
    try {
      const result = (await offloadable(offload, ticketTierOf, local)({ ...job, input } as JobContext<TicketJobInput>)) as { record?: TicketJob };
      if (result?.record) await store.save({ ...result.record, tenant: job.tenant, runs: [...new Set([...record.runs, job.id])] });
      const { record: _r, ...rest } = result ?? {};
      return rest;
    } catch (err) {
      if (err instanceof TicketCancelled) return { jobId: id, state: 'cancelled' };
      const current = store.get(job.tenant, id);
      if (err instanceof OffloadedJobFailed && current && current.state !== 'failed' && current.state !== 'cancelled') {
        current.error = { code: err.code ?? 'error', message: err.message };
        await store.transition(current, 'failed', { note: `on a worker: ${current.error.code}` }).catch(() => undefined);
      }
      throw err;
    }
  };
  return (job) => (offload.applies(ticketTierOf(job.input)) ? remote(job) : offload.local(job as JobContext<OffloadedTicketInput>, local));
}
