/** The /hub/* control-plane routes of the workflow plugin (the /hub/me and /hub/rbac/* rows are rbac's). */
import { reply, z, type PluginContext, sortableId } from 'tessera-runtime/plugin';
import { buildBundle, planDeploy } from './deploy.js';
import { workflowErrors as errors } from './errors.js';
import type { WorkflowOptions } from './options.js';
import { runTest, type TestResult } from './regress.js';
import type { WorkflowService } from './service.js';
import type { WorkflowSpec } from './spec.js';
import type { ExecutionRecord, TestRecord, WorkflowRecord } from './storage.js';

const specBody = z.unknown().describe('A workflow specification (docs/workflow.schema.json).');

export function publicWorkflow(w: WorkflowRecord) {
  return {
    id: w.id,
    name: w.name,
    version: w.version,
    route: w.route,
    tags: w.tags,
    searchFields: w.searchFields,
    source: w.source,
    createdAt: w.createdAt,
    updatedAt: w.updatedAt,
  };
}

function invalid(result: { errors: Array<{ path: string; message: string }> }) {
  const summary = result.errors
    .slice(0, 3)
    .map((e) => `${e.path}: ${e.message}`)
    .join('; ');
  return errors.invalid_workflow({ summary }, { details: { errors: result.errors } });
}

export function traceView(e: ExecutionRecord) {
  return e;
}

export function registerHub(
  ctx: PluginContext<WorkflowOptions>,
  svc: WorkflowService,
  version: string,
): { runTests: (tenant: string, ids: string[] | undefined, workflow: string | undefined) => Promise<unknown> } {
  const { storage } = svc;

  const save = async (tenant: string, spec: WorkflowSpec, existing: WorkflowRecord | undefined, source: 'hub' | 'file'): Promise<WorkflowRecord> => {
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
      source,
      createdAt: existing?.createdAt ?? now,
      updatedAt: now,
    };
    // Mount first: a route another plugin serves fails here, before anything is stored.
    svc.mount(record);
    try {
      await storage.putWorkflow(record);
    } catch (err) {
      svc.unmount(tenant, record.id);
      if (existing) svc.mount(existing);
      throw err;
    }
    svc.remember(record);
    await ctx.events.append(
      existing ? 'workflow.updated' : 'workflow.created',
      { id: record.id, version: record.version, route: record.route },
      { tenant, subject: record.id },
    );
    return record;
  };

  ctx.routes.add({
    method: 'GET',
    path: '/hub/apis',
    permission: 'workflow:read',
    throttle: 'light',
    summary: 'Registered workflows served as routes, with their metadata',
    handler: async ({ tenant }) => {
      const list = await storage.listWorkflows(tenant);
      const apis = [];
      for (const w of list) {
        const st = svc.statsOf(tenant, w.id);
        apis.push({
          ...publicWorkflow(w),
          live: [...svc.live.values()].some((l) => l.tenant === tenant && l.id === w.id),
          executions: st?.executions ?? {},
          // The newest trace of the workflow, so a list shows each one's last run.
          lastExecution: await svc.lastRun(tenant, w.id),
        });
      }
      return { apis };
    },
  });

  ctx.routes.add({
    method: 'GET',
    path: '/hub/workflows',
    permission: 'workflow:read',
    throttle: 'light',
    summary: 'Workflow definitions stored for this tenant',
    handler: async ({ tenant }) => ({ workflows: (await storage.listWorkflows(tenant)).map((w) => ({ ...publicWorkflow(w), spec: w.spec })) }),
  });

  ctx.routes.add({
    method: 'POST',
    path: '/hub/workflows/validate',
    permission: 'workflow:read',
    summary: 'Statically validate a workflow specification without running it',
    body: specBody,
    handler: ({ body, tenant }) => {
      const name = (body as { name?: unknown })?.name;
      const result = svc.validate(body, typeof name === 'string' ? `${tenant}/${name}` : undefined);
      return { valid: result.valid, errors: result.errors };
    },
  });

  ctx.routes.add({
    method: 'POST',
    path: '/hub/workflows',
    permission: 'workflow:create',
    summary: 'Create a workflow and serve its route at once',
    body: specBody,
    successStatus: 201,
    handler: async ({ body, tenant }) => {
      const result = svc.validate(body);
      if (result.collision) throw errors.route_conflict({ route: result.collision.route, owner: 'another workflow' }, { details: { errors: result.errors } });
      if (!result.valid) throw invalid(result);
      const spec = result.spec!;
      if (await storage.getWorkflow(tenant, spec.name)) throw errors.workflow_exists({ id: spec.name });
      const record = await save(tenant, spec, undefined, 'hub');
      return reply(201, { workflow: publicWorkflow(record) }, { location: `/hub/workflows/${record.id}` });
    },
  });

  ctx.routes.add({
    method: 'PUT',
    path: '/hub/workflows/:id',
    permission: 'workflow:edit',
    summary: 'Replace a workflow; its route changes without a restart',
    body: specBody,
    handler: async ({ body, tenant, params }) => {
      const existing = await storage.getWorkflow(tenant, params.id!);
      if (!existing) throw errors.workflow_not_found({ id: params.id! });
      const result = svc.validate(body, `${tenant}/${params.id}`);
      if (result.collision) throw errors.route_conflict({ route: result.collision.route, owner: 'another workflow' }, { details: { errors: result.errors } });
      if (!result.valid) throw invalid(result);
      if (result.spec!.name !== params.id) throw errors.workflow_name_mismatch({ name: result.spec!.name, id: params.id! });
      const record = await save(tenant, result.spec!, existing, 'hub');
      return { workflow: publicWorkflow(record) };
    },
  });

  ctx.routes.add({
    method: 'DELETE',
    path: '/hub/workflows/:id',
    permission: 'workflow:delete',
    summary: 'Delete a workflow and stop serving its route',
    handler: async ({ tenant, params }) => {
      const id = params.id!;
      if (!(await storage.deleteWorkflow(tenant, id))) throw errors.workflow_not_found({ id });
      svc.unmount(tenant, id);
      svc.forget(tenant, id);
      await ctx.events.append('workflow.deleted', { id }, { tenant, subject: id });
      return { deleted: id };
    },
  });

  const traceQuery = z.looseObject({
    workflow: z.string().optional(),
    status: z.enum(['running', 'completed', 'failed', 'interrupted', 'rejected']).optional(),
    from: z.iso.datetime({ offset: true }).optional(),
    to: z.iso.datetime({ offset: true }).optional(),
    limit: z.coerce.number().int().min(1).max(200).default(50),
    cursor: z.string().max(100).optional(),
  });

  ctx.routes.add({
    method: 'GET',
    path: '/hub/traces',
    permission: 'telemetry:read',
    summary: 'Execution traces with step timelines; filter by workflow, status, time range and searchFields values (`field.<name>=value`)',
    query: traceQuery,
    handler: async ({ tenant, query }) => {
      const fields: Record<string, string> = {};
      for (const [k, v] of Object.entries(query)) if (k.startsWith('field.') && typeof v === 'string') fields[k.slice(6)] = v;
      const from = query.from ? new Date(query.from).toISOString() : undefined;
      const to = query.to ? new Date(query.to).toISOString() : undefined;
      const page = await storage.queryExecutions(tenant, {
        workflow: query.workflow,
        status: query.status,
        from,
        to,
        fields,
        limit: query.limit,
        cursor: query.cursor,
      });
      return { traces: page.executions.map(traceView), nextCursor: page.nextCursor };
    },
  });

  ctx.routes.add({
    method: 'GET',
    path: '/hub/traces/:id',
    permission: 'telemetry:read',
    throttle: 'light',
    summary: 'One execution with its step timeline',
    handler: async ({ tenant, params }) => {
      const e = await storage.getExecution(tenant, params.id!);
      if (!e) throw errors.trace_not_found({ id: params.id! });
      return { trace: traceView(e) };
    },
  });

  ctx.routes.add({
    method: 'GET',
    path: '/hub/tests',
    permission: 'workflow:test',
    throttle: 'light',
    summary: 'Regression tests of this tenant',
    query: z.object({ workflow: z.string().optional() }).strict(),
    handler: async ({ tenant, query }) => ({ tests: await storage.listTests(tenant, query.workflow) }),
  });

  const testBody = z
    .object({
      name: z.string().min(1).max(200),
      workflow: z.string().min(1).optional(),
      fromTrace: z.string().min(1).optional(),
      input: z.unknown().optional(),
      attrs: z.record(z.string(), z.unknown()).optional(),
      fixtures: z.record(z.string(), z.unknown()).optional(),
      expected: z.unknown().optional(),
      ignore: z.array(z.string().regex(/^\$/)).max(100).optional(),
    })
    .strict();

  ctx.routes.add({
    method: 'POST',
    path: '/hub/tests',
    permission: 'workflow:test',
    summary: 'Save a regression test, written out or from a recorded trace',
    body: testBody,
    successStatus: 201,
    handler: async ({ tenant, body }) => {
      let test: TestRecord;
      const base = { tenant, id: sortableId('test'), name: body.name, ignore: body.ignore ?? [], createdAt: new Date().toISOString() };
      if (body.fromTrace) {
        const e = await storage.getExecution(tenant, body.fromTrace);
        if (!e) throw errors.trace_not_found({ id: body.fromTrace });
        if (e.status !== 'completed') throw errors.invalid_test({ reason: `trace ${e.id} is ${e.status}, not completed` });
        if (e.truncated?.length) throw errors.invalid_test({ reason: `trace ${e.id} has truncated data (${e.truncated.join(', ')})` });
        // Mock steps are the stand-ins for outside calls: their recorded outputs become fixtures.
        const fixtures: Record<string, unknown> = {};
        for (const s of e.steps) if (s.kind === 'mock' && s.status === 'completed') fixtures[s.id] = s.output;
        test = {
          ...base,
          workflow: e.workflow,
          input: e.input,
          attrs: e.attrs,
          fixtures: { ...fixtures, ...body.fixtures },
          expected: e.output,
          fromTrace: e.id,
        };
      } else {
        if (!body.workflow) throw errors.invalid_test({ reason: 'name the workflow, or give fromTrace' });
        if (!('expected' in body)) throw errors.invalid_test({ reason: 'give the expected output' });
        test = { ...base, workflow: body.workflow, input: body.input ?? {}, attrs: body.attrs, fixtures: body.fixtures ?? {}, expected: body.expected };
      }
      if (!(await storage.getWorkflow(tenant, test.workflow))) throw errors.workflow_not_found({ id: test.workflow });
      await storage.putTest(test);
      return reply(201, { test });
    },
  });

  ctx.routes.add({
    method: 'DELETE',
    path: '/hub/tests/:id',
    permission: 'workflow:test',
    summary: 'Delete a regression test',
    handler: async ({ tenant, params }) => {
      if (!(await storage.deleteTest(tenant, params.id!))) throw errors.test_not_found({ id: params.id! });
      return { deleted: params.id };
    },
  });

  const runTests = async (tenant: string, ids: string[] | undefined, workflow: string | undefined) => {
    let tests = await storage.listTests(tenant, workflow);
    if (ids) {
      const missing = ids.filter((id) => !tests.some((t) => t.id === id));
      if (missing.length > 0) throw errors.test_not_found({ id: missing[0]! });
      tests = tests.filter((t) => ids.includes(t.id));
    }
    const results: TestResult[] = [];
    for (const t of tests) {
      const wf = await storage.getWorkflow(tenant, t.workflow);
      results.push(await runTest(t, wf?.spec, ctx.config.limits.maxDurationMs, ctx.config.defaultTenant));
    }
    const passed = results.filter((r) => r.status === 'passed').length;
    return { total: results.length, passed, failed: results.length - passed, results };
  };

  ctx.jobs.define('run-tests', async (job) => {
    const input = job.input as { ids?: string[]; workflow?: string };
    return runTests(job.tenant, input.ids, input.workflow);
  });

  ctx.routes.add({
    method: 'POST',
    path: '/hub/tests/run',
    permission: 'workflow:test',
    summary: 'Run regression tests in isolation (no traces written) and report pass or fail with a structural diff',
    body: z
      .object({ tests: z.array(z.string()).max(1000).optional(), workflow: z.string().optional(), wait: z.boolean().default(true) })
      .strict()
      .optional(),
    handler: async ({ tenant, body }) => {
      const ids = body?.tests;
      if (ids) {
        const known = new Set((await storage.listTests(tenant)).map((t) => t.id));
        const missing = ids.find((id) => !known.has(id));
        if (missing) throw errors.test_not_found({ id: missing });
      }
      const jobs = ctx.jobs.tenant(tenant);
      const job = await jobs.enqueue('run-tests', { ids, workflow: body?.workflow });
      if (body?.wait === false) return reply(202, { run: { id: job.id, state: job.state } });
      const done = await jobs.wait(job.id);
      if (done.state !== 'completed') return { run: { id: done.id, state: done.state, error: done.error ?? null } };
      const result = done.result as { total: number; passed: number; failed: number };
      await ctx.events.append('tests.run', { run: done.id, total: result.total, passed: result.passed, failed: result.failed }, { tenant, subject: done.id });
      return { run: { id: done.id, state: done.state, ...result } };
    },
  });

  ctx.routes.add({
    method: 'GET',
    path: '/hub/tests/runs/:id',
    permission: 'workflow:test',
    throttle: 'light',
    summary: 'A regression test run started with wait: false',
    handler: ({ tenant, params }) => {
      const job = ctx.jobs.tenant(tenant).get(params.id!);
      if (!job || job.name !== 'run-tests') throw errors.test_not_found({ id: params.id! });
      return { run: { id: job.id, state: job.state, ...(job.result as object), error: job.error ?? null } };
    },
  });

  const targetBody = z.object({ workflows: z.array(z.unknown()).max(1000) }).strict();

  const parseTargets = (tenant: string, raw: unknown[]): WorkflowSpec[] => {
    const specs: WorkflowSpec[] = [];
    const problems: Array<{ path: string; message: string }> = [];
    const routes = new Map<string, string>();
    raw.forEach((r, i) => {
      // Routes are checked among the target set (the plan replaces this tenant's set), not against the live ones.
      const result = svc.validate(r, `${tenant}/${(r as { name?: string })?.name}`);
      for (const e of result.errors)
        if (!result.collision || e.path !== '$.route') problems.push({ path: `$.workflows[${i}]${e.path.slice(1)}`, message: e.message });
      if (result.spec) {
        const key = `${result.spec.route.method} ${result.spec.route.path}`;
        if (routes.has(key)) problems.push({ path: `$.workflows[${i}].route`, message: `${key} is also the route of ${routes.get(key)}` });
        routes.set(key, result.spec.name);
        specs.push(result.spec);
      }
    });
    if (problems.length > 0) throw invalid({ errors: problems });
    return specs;
  };

  ctx.routes.add({
    method: 'POST',
    path: '/hub/deploy/plan',
    permission: 'workflow:deploy',
    summary: 'Diff a target set of workflows against what is deployed; flags breaking changes; changes nothing',
    body: targetBody,
    handler: async ({ tenant, body }) => {
      const specs = parseTargets(tenant, body.workflows);
      const plan = planDeploy(await storage.listWorkflows(tenant), specs);
      await storage.putDeploy({
        tenant,
        id: sortableId('plan'),
        hash: plan.hash,
        kind: 'plan',
        at: new Date().toISOString(),
        summary: { added: plan.added.length, changed: plan.changed.length, removed: plan.removed.length, breaking: plan.breaking.length },
      });
      return { plan };
    },
  });

  ctx.routes.add({
    method: 'POST',
    path: '/hub/deploy/export',
    permission: 'workflow:deploy',
    summary: 'A standalone runnable bundle (specs, manifest, package.json) of the deployed workflows or of the given ones',
    body: z
      .object({
        name: z
          .string()
          .regex(/^[a-z0-9][a-z0-9._-]{0,63}$/)
          .default('tessera-workflows'),
        workflows: z.array(z.unknown()).max(1000).optional(),
        ids: z.array(z.string()).optional(),
      })
      .strict()
      .optional(),
    handler: async ({ tenant, body }) => {
      let specs: WorkflowSpec[];
      if (body?.workflows) specs = parseTargets(tenant, body.workflows);
      else {
        const all = await storage.listWorkflows(tenant);
        const ids = body?.ids;
        if (ids) for (const id of ids) if (!all.some((w) => w.id === id)) throw errors.workflow_not_found({ id });
        specs = all.filter((w) => !ids || ids.includes(w.id)).map((w) => w.spec);
      }
      // The tenant's regression tests of these workflows travel with them, as `tessera test` reads them.
      const names = new Set(specs.map((s) => s.name));
      const tests: Record<string, string> = {};
      const byWorkflow = new Map<string, unknown[]>();
      for (const t of await storage.listTests(tenant)) {
        if (!names.has(t.workflow)) continue;
        const entry = {
          name: t.name,
          workflow: t.workflow,
          input: t.input,
          ...(t.attrs ? { attrs: t.attrs } : {}),
          fixtures: t.fixtures,
          expected: t.expected,
          ignore: t.ignore,
        };
        byWorkflow.set(t.workflow, [...(byWorkflow.get(t.workflow) ?? []), entry]);
      }
      for (const [wf, entries] of byWorkflow) tests[`workflows/${wf}.test.json`] = `${JSON.stringify(entries, null, 2)}\n`;
      const bundle = buildBundle(body?.name ?? 'tessera-workflows', specs, version, 8787, tests);
      await storage.putDeploy({
        tenant,
        id: sortableId('export'),
        hash: bundle.hash,
        kind: 'export',
        at: new Date().toISOString(),
        summary: { workflows: specs.map((s) => s.name) },
      });
      return { bundle };
    },
  });

  ctx.routes.add({
    method: 'GET',
    path: '/hub/metrics',
    permission: 'metrics:read',
    throttle: 'light',
    summary: 'A summary of workflow metrics: executions by workflow and status, latency percentiles, store size',
    handler: async ({ tenant }) => {
      const list = await storage.listWorkflows(tenant);
      const pct = (xs: number[], p: number): number | null => {
        if (xs.length === 0) return null;
        const s = [...xs].sort((a, b) => a - b);
        return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
      };
      const workflows = list.map((w) => {
        const st = svc.statsOf(tenant, w.id);
        return {
          id: w.id,
          executions: st?.executions ?? {},
          latencyMs: { p50: pct(st?.durations ?? [], 50), p95: pct(st?.durations ?? [], 95), p99: pct(st?.durations ?? [], 99) },
        };
      });
      return {
        workflows,
        routes: svc.live.size,
        storedExecutions: await storage.countExecutions(tenant),
        storeBytes: storage.sizeBytes(),
        driver: storage.driver,
        since: startedAt,
      };
    },
  });

  return { runTests };
}

const startedAt = new Date().toISOString();
