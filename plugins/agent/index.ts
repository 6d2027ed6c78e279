import path from 'node:path';
import { definePlugin, type JobRecord } from 'tessera-runtime/plugin';
import { SEARCH_SERVICE } from '../search/index.js';
import { Budgets } from './budget.js';
import { registerChatRoute } from './chat-route.js';
import { DocSearch } from './doc-search.js';
import { registerToolRoutes } from './tool-routes.js';
import { Gateway } from './gateway.js';
import { registerBudgetAndCacheRoutes } from './gateway-routes.js';
import { OpenAiCompatibleProvider } from './openai-provider.js';
import { SemanticCache } from './semantic-cache.js';
import { registerCatalogRoutes, syncScheduleId } from './catalog-routes.js';
import { Catalog } from './catalog.js';
import { Circuits } from './circuits.js';
import { DeadLetters, type Replayable } from './dead-letters.js';
import { errors } from './errors.js';
import { agentMetrics } from './metrics.js';
import { agentOptionsSchema } from './options.js';
import { PriceSync } from './price-sync.js';
import { ProviderConfig, syncIntervals } from './provider-config.js';
import { ProviderHttp } from './provider-http.js';
import { SecretBox } from './secret-box.js';
import { registerTelemetryRoutes } from './telemetry-routes.js';
import { part2Permissions, setupPart2 } from './part2.js';
import { SettingsOverlay, type TenantSettingsSnapshot } from './tenant-settings.js';
import { registerConsole } from './console-route.js';

/**
 * The code-remediation agent service (seed 002, listener 8000), part 1: the model catalogue in ten
 * tiers with price sync, routing with circuit breakers, the LLM gateway with budgets and a semantic
 * cache, telemetry without omission and the dead-letter queue.
 */
export default definePlugin({
  name: 'agent',
  version: '0.1.0',
  dependsOn: [
    { name: 'search', version: '^0.1.0' },
    { name: 'graph', version: '^0.1.0' },
  ],
  options: agentOptionsSchema,
  permissions: [
    { name: 'agent:read', description: 'Read the model catalogue and the token budget.' },
    { name: 'agent:submit', description: 'Call the LLM gateway and replay dead-lettered tasks.' },
    { name: 'agent:telemetry', description: 'Read the agent telemetry: events, dead-letter queue, circuit breakers, cache statistics.' },
    { name: 'models:manage', description: 'Add and remove custom models, sync the catalogue, set the provider key, sync interval and token budget.' },
    { name: 'cache:manage', description: 'Flush the semantic cache.' },
    ...part2Permissions,
  ],
  errors,
  async setup(ctx) {
    // Format 2: the code knowledge graph moved to the search and graph plugins; the old per-file
    // parses (`code-files`, `code-heads`) are dropped and rebuilt into the new stores on first use.
    await ctx.store.format(2, async (from) => {
      if (from < 2) for (const name of ['code-files', 'code-heads']) await ctx.store.db(name).drop();
    });
    const keyFile = path.resolve(path.dirname(ctx.app.dataDir), ctx.config.keyFile ?? `${path.basename(ctx.app.dataDir)}-agent-secrets.key`);
    const box = new SecretBox(keyFile);
    // The settings an offloaded job carries, read instead of the store's while a worker runs it.
    const overlay = new SettingsOverlay();
    const operatorKey = ctx.config.apiKeyEnv ? process.env[ctx.config.apiKeyEnv] || undefined : undefined;
    if (ctx.config.apiKeyEnv && !operatorKey) {
      ctx.log.warn({ apiKeyEnv: ctx.config.apiKeyEnv }, 'the apiKeyEnv variable is unset or empty: tenants without a key of their own have no provider');
    }
    const config = new ProviderConfig(ctx.store, box, ctx.config.baseUrl.replace(/\/+$/, ''), overlay, { key: operatorKey, tenants: ctx.config.apiKeyTenants });
    const catalog = new Catalog(ctx.store, overlay);
    const secretsOf = (tenant: string) => [config.apiKey(tenant)];
    const circuits = new Circuits(ctx.config.breaker, (tenant, circuit, from) => {
      void ctx.events.append(
        'circuit.transition',
        { circuit: circuit.name, from, to: circuit.state, lastError: circuit.lastError, nextProbeAt: circuit.nextProbeAt },
        { tenant },
      );
    });
    const http = new ProviderHttp({
      outbound: ctx.outbound,
      config,
      allow: { allowPrivate: ctx.config.allowPrivateAddresses, allowHosts: ctx.config.allowHosts },
      timeoutMs: ctx.config.callTimeoutMs,
    });
    const sync = new PriceSync({ store: ctx.store, catalog, config, http, circuits, events: ctx.events });
    const deadLetters = new DeadLetters(ctx.store, ctx.jobs, ctx.events, secretsOf);

    ctx.jobs.define<Replayable>(
      'models.sync',
      deadLetters.guard((job) => sync.run(job.tenant, job.signal)),
      {
        concurrency: 2,
        retry: { attempts: ctx.config.sync.attempts, backoff: { type: 'exponential', delayMs: ctx.config.sync.backoffMs } },
        timeoutMs: ctx.config.callTimeoutMs * 2,
      },
    );

    const metrics = agentMetrics(ctx, { circuits, deadLetters });
    const budgets = new Budgets(ctx.store, overlay);
    const search = ctx.container.resolve(SEARCH_SERVICE);
    const cache = new SemanticCache(ctx.store, search, () => ctx.config.cache.similarityThreshold);
    const gateway = new Gateway({
      catalog,
      circuits,
      budgets,
      cache,
      events: ctx.events,
      metrics,
      provider: (tenant) => new OpenAiCompatibleProvider('openai-compatible', (p, init) => http.request(tenant, p, init)),
      secrets: secretsOf,
      maxEscalation: ctx.config.maxEscalation,
      callTimeoutMs: ctx.config.callTimeoutMs,
      cacheEnabled: ctx.config.cache.enabled,
    });

    registerCatalogRoutes(ctx, {
      catalog,
      config,
      cache,
      async syncNow(tenant, signal): Promise<JobRecord> {
        const jobs = ctx.jobs.tenant(tenant);
        const job = await jobs.enqueue('models.sync', {}, { key: 'models.sync', keyScope: 'active' });
        return jobs.wait(job.id, signal);
      },
      async scheduleSync(tenant) {
        const interval = config.view(tenant).syncInterval;
        const id = syncScheduleId(tenant);
        if (interval === null) {
          if (ctx.jobs.getSchedule(id)) await ctx.jobs.unschedule(id);
          return;
        }
        await ctx.jobs.tenant(tenant).schedule(id, { interval: syncIntervals[interval], catchUp: 'once' }, 'models.sync', {});
      },
    });
    registerTelemetryRoutes(ctx, { circuits, deadLetters });
    registerChatRoute(ctx, { gateway, budgets, secrets: secretsOf });
    registerBudgetAndCacheRoutes(ctx, { budgets, cache });
    registerToolRoutes(ctx, { docs: new DocSearch(ctx.store, search, ctx.outbound, ctx.config.searxngUrl) });
    ctx.onStop(deadLetters.listen());
    ctx.onStop(() => cache.drain());
    const settings = {
      overlay,
      snapshot: (tenant: string, queueBox: SecretBox): TenantSettingsSnapshot => ({
        v: 1,
        provider: config.carried(tenant, queueBox),
        catalog: catalog.own(tenant),
        budget: budgets.get(tenant),
        takenAt: new Date().toISOString(),
      }),
    };
    setupPart2(ctx, { gateway, providerConfig: config, secretBox: box, budgets, deadLetters, settings });
    registerConsole(ctx);
  },
});
