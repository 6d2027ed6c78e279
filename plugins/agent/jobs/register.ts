import type { PluginContext } from 'tessera-runtime/plugin';
import type { Budgets } from '../budget.js';
import type { CodeIndex } from '../code/code-index.js';
import type { DeadLetters } from '../dead-letters.js';
import type { ForgeClient } from '../forge/client.js';
import type { Gateway } from '../gateway.js';
import type { AgentOptions } from '../options.js';
import type { ProviderConfig } from '../provider-config.js';
import type { Repositories } from '../repos/repositories.js';
import type { Sandbox } from '../sandbox/run.js';
import type { Offload } from '../worker/offload.js';
import { AgentModel } from './model.js';
import { offloadedTickets } from './offloaded.js';
import { registerRemediateRoute } from './remediate-route.js';
import { registerTicketRoutes } from './routes.js';
import { TicketRunner } from './runner.js';
import { setTicketIntake } from './submit.js';
import { TicketStore, type TicketJobInput } from './ticket-store.js';

export interface TicketDeps {
  gateway: Gateway;
  config: ProviderConfig;
  budgets: Budgets;
  deadLetters: DeadLetters;
  repos: Repositories;
  graphs: CodeIndex;
  sandbox: Sandbox;
  forge?: ForgeClient | undefined;
  /** Hands jobs of the `workers.tiers` to `tessera worker` processes. */
  offload?: Offload;
}

/** The permissions of ticket jobs. */
export const ticketPermissions = [
  { name: 'jobs:read', description: 'List ticket jobs and read one: timeline, attempts, diff, tests, pull request.' },
  { name: 'jobs:write', description: 'Submit tickets (webhook, remediate), answer clarifying questions, cancel jobs.' },
];

/** Ticket jobs: the `ticket` job on `ctx.jobs`, its records, the webhook, `/api/v1/jobs*` and `/api/v1/agent/remediate`. */
export function registerTickets(ctx: PluginContext<AgentOptions>, d: TicketDeps): void {
  const o = ctx.config.tickets;
  const store = new TicketStore(ctx.store, ctx.events);
  const model = new AgentModel(d.gateway, d.config);
  const runner = new TicketRunner({
    store,
    repos: d.repos,
    graphs: d.graphs,
    sandbox: d.sandbox,
    model,
    budgets: d.budgets,
    jobs: ctx.jobs,
    events: ctx.events,
    forge: d.forge,
    author: ctx.config.author,
    maxEscalation: ctx.config.maxEscalation,
    options: { perTenant: o.perTenant, maxIterations: o.maxIterations, contextChars: o.contextChars },
  });
  ctx.jobs.define<TicketJobInput>(
    'ticket',
    d.deadLetters.guard(d.offload ? offloadedTickets(store, d.offload, runner.handle) : runner.handle, (job) => runner.deadLetterDetails(job)),
    { concurrency: o.concurrency, timeoutMs: o.timeoutMs, onInterrupt: 'retry' },
  );
  setTicketIntake(ctx, { store, repositoryExists: (repo) => d.repos.known(repo) });
  registerTicketRoutes(ctx, store);
  registerRemediateRoute(ctx, { repos: d.repos, sandbox: d.sandbox, model, graphs: d.graphs });
}
