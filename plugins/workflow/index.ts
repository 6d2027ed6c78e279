import { definePlugin } from 'tessera-runtime/plugin';
import { workflowErrors } from './errors.js';
import { registerHub } from './hub.js';
import { registerUi } from './ui-routes.js';
import { workflowOptions } from './options.js';
import { WorkflowService } from './service.js';
import { lmdbStorage } from './storage-lmdb.js';
import type { WorkflowRecord } from './storage.js';

export { workflow } from './dsl.js';
export type { WorkflowSpec, StepSpec } from './spec.js';

/** Seed 001's permission names. `rbac:manage` is rbac's; /hub/me and /hub/rbac/* are rbac's routes. */
export const workflowPermissions = [
  { name: 'workflow:read', description: 'List workflows and registered APIs; validate specs.' },
  { name: 'workflow:create', description: 'Create workflows (their routes are served at once).' },
  { name: 'workflow:edit', description: 'Update workflows.' },
  { name: 'workflow:delete', description: 'Delete workflows (their routes stop at once).' },
  { name: 'workflow:test', description: 'Save, list and run regression tests.' },
  { name: 'workflow:deploy', description: 'Deploy plans and exported bundles.' },
  { name: 'telemetry:read', description: 'Execution traces and step timelines.' },
  { name: 'metrics:read', description: 'The workflow metrics summary (`GET /hub/metrics`).' },
  { name: 'api:invoke', description: 'Call workflow routes when `protectInvoke` is on.' },
];

/**
 * Workflows as HTTP routes (seed 001): specs stored per tenant, validated statically, served live on
 * the listeners that name this plugin, executed with a persisted step timeline; the /hub control plane.
 */
export default definePlugin({
  name: 'workflow',
  version: '1.0.0',
  options: workflowOptions,
  permissions: workflowPermissions,
  errors: workflowErrors,
  async setup(ctx) {
    await ctx.store.format(1);
    let storage;
    if (ctx.config.dbPath !== undefined) {
      const { sqliteStorage } = await import('./storage-sqlite.js');
      storage = sqliteStorage(ctx.config.dbPath, ctx.app.manifestFile);
    } else storage = lmdbStorage(ctx.store);
    const svc = new WorkflowService(ctx, storage);
    registerHub(ctx, svc, ctx.version);
    registerUi(ctx);

    ctx.jobs.define('prune-traces', async () => {
      let deleted = 0;
      for (const tenant of await storage.executionTenants()) deleted += await svc.prune(tenant);
      return { deleted };
    });

    ctx.onStart(async () => {
      const interrupted = await storage.markInterrupted(new Date().toISOString());
      if (interrupted > 0) ctx.log.warn({ interrupted }, 'executions interrupted by the last stop are marked interrupted');
      if (ctx.config.workflows !== undefined) {
        const tenant = ctx.config.defaultTenant;
        for (const { spec: raw, file, inject } of await svc.loadFiles(ctx.config.workflows)) {
          const result = svc.validate(raw, `${tenant}/${(raw as { name?: string })?.name}`);
          if (!result.valid) throw new Error(`${file}: ${result.errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`);
          const spec = result.spec!;
          const existing = await storage.getWorkflow(tenant, spec.name);
          const now = new Date().toISOString();
          const record: WorkflowRecord = {
            tenant,
            id: spec.name,
            name: spec.name,
            version: spec.version,
            route: spec.route,
            tags: spec.tags,
            searchFields: spec.searchFields,
            spec,
            source: 'file',
            createdAt: existing?.createdAt ?? now,
            updatedAt: now,
          };
          await storage.putWorkflow(record);
          if (inject) svc.injects.set(spec.name, inject);
        }
      }
      for (const record of await storage.listWorkflows()) {
        try {
          svc.mount(record);
          svc.remember(record);
        } catch (err) {
          ctx.log.error({ err, tenant: record.tenant, workflow: record.id }, 'workflow route not served');
        }
      }
      await ctx.jobs.schedule('workflow-retention', { interval: ctx.config.retention.interval, catchUp: 'skip' }, 'prune-traces', {});
      ctx.log.info({ workflows: svc.live.size, driver: storage.driver }, 'workflow routes served');
    });
    ctx.onStop(() => storage.close());
  },
});
