import { reply, validate, z, type JobRecord, type PluginContext } from 'tessera-runtime/plugin';
import type { Catalog } from './catalog.js';
import { errors } from './errors.js';
import type { AgentOptions } from './options.js';
import { syncIntervals, type ProviderConfig } from './provider-config.js';
import type { SemanticCacheLike } from './cache-port.js';
import { maxTier, tiers } from './tiers.js';

const price = z.number().finite().min(0).max(100_000);
const tierNumber = z.number().int().min(1).max(maxTier);

export const customModelBody = z.strictObject({
  id: z
    .string()
    .min(1)
    .max(200)
    .regex(/^[A-Za-z0-9][A-Za-z0-9._:/@+-]*$/, 'letters, digits and ._:/@+- only'),
  name: z.string().min(1).max(200).optional(),
  tier: z.number().int(),
  contextLength: z.number().int().min(1).max(100_000_000).optional(),
  pricing: z.strictObject({ promptPer1M: price, completionPer1M: price }),
  latencyMs: z.number().int().min(0).max(600_000).optional(),
  benchmarks: z.record(z.string().min(1).max(100), z.number().finite()).optional(),
});

export const configBody = z.strictObject({
  /** Write-only: stored sealed; `null` removes it. */
  apiKey: z.string().min(8).max(500).nullable().optional(),
  syncInterval: z
    .enum(Object.keys(syncIntervals) as [keyof typeof syncIntervals])
    .nullable()
    .optional(),
  baseUrl: z
    .url({ protocol: /^https?$/ })
    .nullable()
    .optional(),
  tierOverrides: z.record(z.string().min(1).max(200), z.number().int().nullable()).optional(),
});

const catalogQuery = z.strictObject({ tier: z.coerce.number().int().min(1).max(maxTier).optional(), q: z.string().min(1).max(200).optional() });
const deleteQuery = z.strictObject({ id: z.string().min(1).max(200).optional() });

export interface CatalogRouteDeps {
  catalog: Catalog;
  config: ProviderConfig;
  cache: SemanticCacheLike;
  /** Queue a sync job for the tenant and wait for its end. */
  syncNow(tenant: string, signal: AbortSignal): Promise<JobRecord>;
  scheduleSync(tenant: string): Promise<void>;
}

/** `/api/v1/models/*`: the catalogue, the on-demand sync and the provider configuration. */
export function registerCatalogRoutes(ctx: PluginContext<AgentOptions>, d: CatalogRouteDeps): void {
  const tags = ['agent: models'];

  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/models/catalog',
    permission: 'agent:read',
    throttle: 'light',
    query: catalogQuery,
    tags,
    summary: 'The ten tiers and every model in them (filters: tier, q)',
    handler: ({ tenant, query }) => ({
      tiers: query.tier === undefined ? tiers : tiers.filter((t) => t.tier === query.tier),
      models: d.catalog.list(tenant, query),
    }),
  });

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/models/catalog',
    permission: 'models:manage',
    body: customModelBody,
    tags,
    summary: 'Add a custom model to a tier with its own pricing',
    async handler({ tenant, body }) {
      const model = await d.catalog.addCustom(tenant, body);
      await ctx.events.append('models.custom_added', { id: model.id, tier: model.tier, pricing: model.pricing }, { tenant });
      return reply(201, { model });
    },
  });

  ctx.routes.add({
    method: 'DELETE',
    path: '/api/v1/models/catalog',
    permission: 'models:manage',
    query: deleteQuery,
    tags,
    summary: 'Remove a model from its tier (custom: deleted; seed or synced: hidden) and purge its cache entries',
    async handler(request) {
      let id = request.query.id;
      if (id === undefined) {
        const text = await request.text();
        // No ?id=: the id comes in a JSON body, validated like a route body (400 validation_failed).
        id = validate(z.strictObject({ id: z.string().min(1).max(200) }), text ? safeJson(text) : undefined, 'request body', 'body').id;
      }
      const removed = await d.catalog.remove(request.tenant, id);
      if (!removed) throw errors.model_not_found({ id });
      const purged = await d.cache.purgeModel(request.tenant, id);
      await ctx.events.append('models.removed', { id, custom: removed.custom, cacheEntriesPurged: purged }, { tenant: request.tenant });
      return { removed: { id, tier: removed.tier, custom: removed.custom, action: removed.custom ? 'deleted' : 'hidden' }, cacheEntriesPurged: purged };
    },
  });

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/models/sync',
    permission: 'models:manage',
    throttle: 'heavy',
    tags,
    summary: 'Synchronise models and prices from the routing provider now',
    async handler({ tenant, signal }) {
      const job = await d.syncNow(tenant, signal);
      if (job.state !== 'completed') {
        throw errors.sync_failed({ reason: job.error?.message ?? job.state }, { details: { jobId: job.id, state: job.state, code: job.error?.code } });
      }
      return { jobId: job.id, ...(job.result as object) };
    },
  });

  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/models/config',
    permission: 'models:manage',
    throttle: 'light',
    tags,
    summary: 'The provider configuration (the key shows only as configured and its last four characters)',
    handler: async ({ tenant }) => ({ config: await configView(ctx, d, tenant) }),
  });

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/models/config',
    permission: 'models:manage',
    body: configBody,
    tags,
    summary: 'Set the provider API key (write-only), the sync interval, the base URL and tier overrides',
    async handler({ tenant, body }) {
      if (body.baseUrl) {
        const verdict = ctx.outbound.check(body.baseUrl, { allowPrivate: ctx.config.allowPrivateAddresses, allowHosts: ctx.config.allowHosts });
        if (!verdict.allowed) throw errors.egress_not_allowed({ url: body.baseUrl, reason: verdict.reason ?? 'refused' });
      }
      for (const [id, tier] of Object.entries(body.tierOverrides ?? {})) {
        if (tier !== null && !tierNumber.safeParse(tier).success) throw errors.unknown_tier({ tier, max: maxTier }, { details: { model: id, tier } });
      }
      await d.config.update(tenant, body);
      if (body.syncInterval !== undefined) await d.scheduleSync(tenant);
      const changed = Object.keys(body).map((k) => (k === 'apiKey' ? (body.apiKey === null ? 'apiKey:removed' : 'apiKey:set') : k));
      await ctx.events.append('models.config_changed', { changed }, { tenant });
      return { config: await configView(ctx, d, tenant) };
    },
  });
}

async function configView(ctx: PluginContext<AgentOptions>, d: CatalogRouteDeps, tenant: string) {
  const view = d.config.view(tenant);
  const schedule = await ctx.jobs.getSchedule(syncScheduleId(tenant));
  return { ...view, nextSyncAt: schedule && !schedule.paused ? (schedule.nextRunAt ?? null) : null };
}

export const syncScheduleId = (tenant: string): string => `models-sync:${tenant}`;

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
