import type { PluginContext } from 'tessera-runtime/plugin';
import type { ForgeClient } from '../forge/client.js';
import type { Gateway } from '../gateway.js';
import type { AgentOptions } from '../options.js';
import type { ProviderConfig } from '../provider-config.js';
import type { Repositories } from '../repos/repositories.js';
import type { SecretBox } from '../secret-box.js';
import { registerReviewRoute } from '../review/route.js';
import type { ReviewDeps } from '../review/service.js';
import { PlaybookConfigs } from './config.js';
import { registerPlaybookRoutes } from './routes.js';
import { PlaybookRunner } from './runner.js';
import { TicketOrigins, TrackerComments, WebhookSecrets } from './tracker.js';

/** A tenant has a model provider when it set an API key, or its own base URL (a local server needing no key), in `/api/v1/models/config`, or the operator's key (`apiKeyEnv`) serves it. */
export function providerConfigured(config: ProviderConfig, tenant: string): boolean {
  return config.configured(tenant);
}

/**
 * Playbooks: the per-tenant configuration, the story webhook that starts ticket jobs, the review
 * route, and the runner that comments progress and merges proposed pull requests that meet the criteria.
 */
export function setupPlaybooks(
  ctx: PluginContext<AgentOptions>,
  d: { repos: Repositories; secretBox: SecretBox; forge?: ForgeClient; gateway?: Gateway; providerConfig?: ProviderConfig },
): PlaybookRunner {
  const configs = new PlaybookConfigs(ctx.store);
  const origins = new TicketOrigins(ctx.store);
  const review: ReviewDeps = {
    repos: d.repos,
    events: ctx.events,
    providerConfigured: (tenant) => (d.providerConfig ? providerConfigured(d.providerConfig, tenant) : false),
    ...(d.forge ? { forge: d.forge } : {}),
    ...(d.gateway ? { gateway: d.gateway } : {}),
  };
  registerReviewRoute(ctx, { ...review, defaultModel: (tenant) => configs.get(tenant).review.model });
  registerPlaybookRoutes(ctx, { configs, origins, secrets: new WebhookSecrets(ctx.store, d.secretBox) });
  const runner = new PlaybookRunner({
    store: ctx.store,
    events: ctx.events,
    log: ctx.log,
    configs,
    origins,
    comments: new TrackerComments(d.forge, ctx.events),
    review,
    ...(d.forge ? { forge: d.forge } : {}),
  });
  const stop = new AbortController();
  let running: Promise<void> | undefined;
  ctx.onStart(() => {
    running = runner.run(stop.signal).catch((err) => ctx.log.error({ err }, 'the playbook runner stopped'));
  });
  ctx.onStop(async () => {
    stop.abort();
    await running;
  });
  return runner;
}

/** The permissions of the playbook routes. */
export const playbookPermissions = [
  { name: 'playbooks:read', description: 'Read the playbook configuration.' },
  { name: 'playbooks:manage', description: 'Change the playbook configuration: listener rules, auto-commenting, auto-merge criteria.' },
  { name: 'playbooks:ingest', description: 'Send tracker story events to the story webhook (starts ticket jobs).' },
];
