import type { PluginContext } from 'tessera-runtime/plugin';
import { errors } from '../errors.js';
import { parseRepoId } from '../repos/repositories.js';
import type { Ticket, TicketJobInput, TicketStore } from './ticket-store.js';

/** What `submitTicket` needs besides the plugin context (set once by `registerTickets`). */
export interface TicketIntake {
  store: TicketStore;
  /** Whether the repository can be found (under `reposRoot` or on the forge). */
  repositoryExists(repo: string): Promise<boolean>;
}

const intakes = new WeakMap<object, TicketIntake>();

/** Called by `registerTickets`: the intake `submitTicket` uses for this plugin context. */
export function setTicketIntake(ctx: object, intake: TicketIntake): void {
  intakes.set(ctx, intake);
}

/**
 * Starts (or finds) the ticket job of a ticket: 422 `repository_unknown` for a repository that
 * neither `reposRoot` nor the forge has; otherwise the `ticket` job is enqueued with the key
 * `ticket:<ticket_id>` in the tenant, so a redelivered ticket answers the job it already has
 * (`created: false`), whatever state that job is in.
 */
export async function submitTicket(
  ctx: Pick<PluginContext, 'jobs'>,
  tenant: string,
  ticket: Ticket,
  user?: string,
  options?: TicketJobInput['options'],
): Promise<{ jobId: string; state: string; created: boolean }> {
  const intake = intakes.get(ctx);
  if (!intake) throw new Error('submitTicket: the agent plugin has not registered its ticket jobs');
  const existing = intake.store.idOf(tenant, ticket.ticket_id);
  const found = existing ? intake.store.get(tenant, existing) : undefined;
  if (found) return { jobId: found.id, state: found.state, created: false };
  parseRepoId(ticket.repo_name);
  if (!(await intake.repositoryExists(ticket.repo_name))) throw errors.repository_unknown({ repo: ticket.repo_name });
  const input: TicketJobInput = { ticket, ...(user ? { user } : {}), ...(options ? { options } : {}) };
  const before = Date.now();
  const job = await ctx.jobs.tenant(tenant).enqueue('ticket', input, { key: `ticket:${ticket.ticket_id}` });
  // The run may have started (and made the record) already: `created` says whether this call made the job.
  const { record } = await intake.store.ensure(tenant, job.id, ticket, user ?? 'anonymous', options);
  return { jobId: record.id, state: record.state, created: Date.parse(job.createdAt) >= before };
}
