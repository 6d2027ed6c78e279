/**
 * The workflow service: stored workflows served live as routes, executions run and persisted with
 * their timelines, metrics, retention.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { reply, sortableId, z, type PluginContext, type Reply, type RouteHandle, type RouteRequest } from 'tessera-runtime/plugin';
import { BudgetExceeded, runWorkflow } from './engine.js';
import { workflowErrors as errors } from './errors.js';
import type { WorkflowOptions } from './options.js';
import type { WorkflowSpec } from './spec.js';
import type { ExecutionRecord, WorkflowRecord, WorkflowStorage } from './storage.js';
import { lookup } from './template.js';
import { inputFields, routeKey, validateSpec, type ValidationResult } from './validate.js';

export type InjectFn = (request: { headers: Headers; method: string; path: string; query: Record<string, string> }) => Record<string, unknown>;

interface Live {
  tenant: string;
  id: string;
  handle: RouteHandle;
}

export interface LastRun {
  id: string;
  status: string;
  startedAt: string;
  durationMs: number | null;
}

interface Stats {
  executions: Record<string, number>;
  durations: number[];
}

export class WorkflowService {
  readonly live = new Map<string, Live>();
  /** Per-workflow inject functions from DSL modules (by workflow name, default tenant). */
  readonly injects = new Map<string, InjectFn>();
  private readonly sinceprune = new Map<string, number>();
  /** Executions by status and recent durations of each workflow since start (`tenant\0id`: ids are per tenant). */
  private readonly stats = new Map<string, Stats>();
  /** The newest execution of each workflow (`tenant\0id`; null: none), filled from storage on first use. */
  readonly lastRuns = new Map<string, LastRun | null>();
  private readonly executionsTotal;
  private readonly stepDuration;
  private readonly executionDuration;

  constructor(
    readonly ctx: PluginContext<WorkflowOptions>,
    readonly storage: WorkflowStorage,
  ) {
    this.executionsTotal = ctx.metrics.counter({
      name: 'workflow_executions_total',
      help: 'Workflow executions by workflow and final status.',
      labelNames: ['workflow', 'status'],
    });
    this.stepDuration = ctx.metrics.histogram({
      name: 'workflow_step_duration_seconds',
      help: 'Duration of workflow steps by workflow and step kind.',
      labelNames: ['workflow', 'kind'],
      buckets: [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
    });
    this.executionDuration = ctx.metrics.histogram({
      name: 'workflow_execution_duration_seconds',
      help: 'Duration of workflow executions by workflow.',
      labelNames: ['workflow'],
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30],
    });
    const storage2 = storage;
    ctx.metrics.gauge({
      name: 'workflow_store_bytes',
      help: 'Bytes used by workflow data (workflows, traces, tests, deploy records).',
      collect() {
        this.set(storage2.sizeBytes());
      },
    });
    const live = this.live;
    ctx.metrics.gauge({
      name: 'workflow_routes',
      help: 'Workflow routes currently served.',
      collect() {
        this.set(live.size);
      },
    });
  }

  /** Static validation against the live routes; `self` is the `tenant/id` being updated. */
  validate(raw: unknown, self?: string): ValidationResult {
    const taken = new Map([...this.live.entries()].map(([k, v]) => [k, `${v.tenant}/${v.id}`]));
    return validateSpec(raw, { takenRoutes: taken, self: self ?? '\u0000', maxSteps: this.ctx.config.limits.maxSteps });
  }

  /** Mounts (or re-mounts) a workflow's route. */
  mount(record: WorkflowRecord): void {
    this.unmount(record.tenant, record.id);
    const { spec } = record;
    const key = routeKey(spec.route.method, spec.route.path);
    const owner = this.live.get(key);
    // Another tenant's workflow is not named: its id is that tenant's business.
    if (owner)
      throw errors.route_conflict({
        route: `${spec.route.method} ${spec.route.path}`,
        owner: owner.tenant === record.tenant ? `workflow "${owner.id}"` : 'another workflow',
      });
    const method = spec.route.method;
    const fields = inputFields(spec);
    const requiredFields = spec.input?.required ?? [];
    const hasBody = method !== 'GET' && method !== 'DELETE';
    const bodySchema = hasBody
      ? z
          .looseObject(
            Object.fromEntries(fields.map((f) => [f, requiredFields.includes(f) ? z.any().describe(`input.${f}`) : z.any().optional().describe(`input.${f}`)])),
          )
          .optional()
      : undefined;
    let handle: RouteHandle;
    try {
      handle = this.ctx.routes.add({
        method,
        path: spec.route.path,
        permission: this.ctx.config.protectInvoke ? 'api:invoke' : 'public',
        body: bodySchema,
        bodyLimit: this.ctx.config.limits.maxInputBytes,
        summary: spec.description ?? `Workflow ${spec.name} (version ${spec.version})`,
        tags: ['workflows', ...spec.tags],
        handler: (request) => this.invoke(record.tenant, record.id, request as RouteRequest),
      });
    } catch (err) {
      if ((err as { code?: string }).code === 'plugin_route_conflict')
        throw errors.route_conflict({ route: `${method} ${spec.route.path}`, owner: 'another route of this listener' });
      throw err;
    }
    this.live.set(key, { tenant: record.tenant, id: record.id, handle });
  }

  unmount(tenant: string, id: string): void {
    for (const [k, v] of this.live) {
      if (v.tenant === tenant && v.id === id) {
        v.handle.remove();
        this.live.delete(k);
      }
    }
  }

  private specs = new Map<string, WorkflowRecord>();
  remember(record: WorkflowRecord): void {
    this.specs.set(`${record.tenant}\u0000${record.id}`, record);
  }
  forget(tenant: string, id: string): void {
    this.specs.delete(`${tenant}\u0000${id}`);
    this.lastRuns.delete(`${tenant}\u0000${id}`);
  }

  /** The newest execution of a workflow: from memory, else one storage query (remembered). */
  async lastRun(tenant: string, id: string): Promise<LastRun | null> {
    const key = `${tenant}\u0000${id}`;
    const known = this.lastRuns.get(key);
    if (known !== undefined) return known;
    const e = (await this.storage.queryExecutions(tenant, { workflow: id, limit: 1 })).executions[0];
    const last = e ? { id: e.id, status: e.status, startedAt: e.startedAt, durationMs: e.durationMs ?? null } : null;
    // An execution that finished meanwhile is newer than what storage answered.
    if (!this.lastRuns.has(key)) this.lastRuns.set(key, last);
    return this.lastRuns.get(key)!;
  }

  /** A tenant's workflow's executions by status and recent durations since start (none yet: undefined). */
  statsOf(tenant: string, id: string): Readonly<Stats> | undefined {
    return this.stats.get(`${tenant}\u0000${id}`);
  }

  defaultInject(request: { headers: Headers }): Record<string, unknown> {
    return { tenant: request.headers.get('x-tenant-id') || this.ctx.config.defaultTenant };
  }

  private async invoke(tenant: string, id: string, request: RouteRequest): Promise<Reply> {
    const record = this.specs.get(`${tenant}\u0000${id}`);
    if (!record) throw errors.workflow_not_found({ id });
    const spec = record.spec;
    const input: unknown = request.body ?? (spec.route.method === 'GET' || spec.route.method === 'DELETE' ? { ...request.query } : {});
    if (spec.input?.required?.length) {
      const missing = spec.input.required.filter((f) => lookup(input, f.split('.')) === undefined);
      if (missing.length > 0) throw errors.input_field_missing({ fields: missing.join(', ') });
    }
    const inject = (tenant === this.ctx.config.defaultTenant && this.injects.get(id)) || ((r: { headers: Headers }) => this.defaultInject(r));
    const attrs = inject({ headers: request.headers, method: request.method, path: request.path, query: request.query as Record<string, string> });
    if (Object.keys(request.params).length > 0) attrs.params = { ...request.params };
    const exec: ExecutionRecord = {
      tenant,
      id: sortableId('ex'),
      workflow: id,
      workflowVersion: spec.version,
      status: 'running',
      startedAt: new Date().toISOString(),
      attrs,
      fields: this.fieldsOf(spec, input, attrs),
      steps: [],
    };
    void this.storage.startExecution(exec).catch((err: unknown) => this.ctx.log.error({ err }, 'recording a running execution failed'));
    let budgetError: BudgetExceeded | undefined;
    let outcome;
    try {
      outcome = await runWorkflow(spec, { input, attrs, now: exec.startedAt, maxDurationMs: this.ctx.config.limits.maxDurationMs, signal: request.signal });
    } catch (err) {
      if (!(err instanceof BudgetExceeded)) {
        // Not left `running` until the next start: the trace says what happened.
        const message = err instanceof Error ? err.message : String(err);
        await this.storage.finishExecution({ ...exec, status: 'failed', finishedAt: new Date().toISOString(), error: { code: 'internal_error', message } });
        throw err;
      }
      budgetError = err;
    }
    const truncated: string[] = [];
    const cap = this.ctx.config.retention.maxStepDataBytes;
    const final: ExecutionRecord = {
      ...exec,
      status: outcome?.status ?? 'failed',
      finishedAt: new Date().toISOString(),
      durationMs: outcome?.durationMs ?? this.ctx.config.limits.maxDurationMs,
      input: capValue(input, cap, '$.input', truncated),
      output: outcome?.output === undefined ? undefined : capValue(outcome.output, cap, '$.output', truncated),
      steps: (outcome?.steps ?? []).map((s, i) => ({
        ...s,
        output: s.output === undefined ? undefined : capValue(s.output, cap, `$.steps[${i}].output`, truncated),
      })),
      ...(outcome?.error ? { error: outcome.error } : {}),
      ...(budgetError ? { error: { code: 'execution_budget_exceeded', message: budgetError.message } } : {}),
    };
    if (truncated.length > 0) final.truncated = truncated;
    await this.storage.finishExecution(final);
    this.observe(final);
    void this.maybePrune(tenant);
    const headers = { 'x-execution-id': final.id };
    if (budgetError)
      throw errors.execution_budget_exceeded(
        { limit: budgetError.limit, value: budgetError.value },
        { details: { executionId: final.id, limit: budgetError.limit, value: budgetError.value }, headers },
      );
    if (outcome!.status === 'failed') {
      const e = outcome!.error!;
      throw errors.step_failed({ stepId: e.stepId, message: e.message }, { details: { executionId: final.id, stepId: e.stepId, code: e.code }, headers });
    }
    // The output exactly (no `ok` wrapper), sent as a string: a web Response would be streamed by
    // the Node adapter, which costs more than the rest of a short workflow.
    return reply(200, JSON.stringify(outcome!.output ?? null), { 'content-type': 'application/json;charset=UTF-8', ...headers });
  }

  fieldsOf(spec: WorkflowSpec, input: unknown, attrs: Record<string, unknown>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const f of spec.searchFields) {
      const segs = f.split('.');
      const v = lookup(attrs, segs) ?? lookup(input, segs);
      if (v !== undefined && v !== null && typeof v !== 'object') out[f] = String(v);
    }
    return out;
  }

  /** prom-client children by label values: observing through one skips hashing the labels each time. */
  private readonly children = new Map<string, { observe(v: number): void; inc(): void }>();
  private child(key: string, make: () => { observe?(v: number): void; inc?(): void }) {
    let c = this.children.get(key);
    if (!c) this.children.set(key, (c = make() as { observe(v: number): void; inc(): void }));
    return c;
  }

  private observe(e: ExecutionRecord): void {
    const w = e.workflow;
    this.child(`t\u0000${w}\u0000${e.status}`, () => this.executionsTotal.labels(w, e.status)).inc();
    this.child(`d\u0000${w}`, () => this.executionDuration.labels(w)).observe((e.durationMs ?? 0) / 1000);
    for (const s of e.steps) this.child(`s\u0000${w}\u0000${s.kind}`, () => this.stepDuration.labels(w, s.kind)).observe(s.durationMs / 1000);
    this.lastRuns.set(`${e.tenant}\u0000${w}`, { id: e.id, status: e.status, startedAt: e.startedAt, durationMs: e.durationMs ?? null });
    const key = `${e.tenant}\u0000${w}`;
    let st = this.stats.get(key);
    if (!st) this.stats.set(key, (st = { executions: {}, durations: [] }));
    st.executions[e.status] = (st.executions[e.status] ?? 0) + 1;
    st.durations.push(e.durationMs ?? 0);
    if (st.durations.length > 1000) st.durations.splice(0, st.durations.length - 1000);
  }

  private async maybePrune(tenant: string): Promise<void> {
    const n = (this.sinceprune.get(tenant) ?? 0) + 1;
    if (n < this.ctx.config.retention.pruneEvery) {
      this.sinceprune.set(tenant, n);
      return;
    }
    this.sinceprune.set(tenant, 0);
    try {
      await this.prune(tenant);
    } catch (err) {
      this.ctx.log.warn({ err, tenant }, 'pruning traces failed');
    }
  }

  /** One retention pass over a tenant; returns how many executions were deleted. */
  async prune(tenant: string): Promise<number> {
    const r = this.ctx.config.retention;
    return this.storage.prune(tenant, { maxAgeMs: r.maxAgeDays * 86_400_000, maxCount: r.maxPerTenant, batch: r.batch });
  }

  /** Loads JSON specs and DSL modules from the `workflows` option. */
  async loadFiles(target: string): Promise<Array<{ spec: unknown; file: string; inject?: InjectFn }>> {
    return loadWorkflowFiles(target);
  }
}

/** A value whose JSON exceeds `cap` bytes is replaced by a marked preview. */
export function capValue(value: unknown, cap: number, path: string, truncated: string[]): unknown {
  const json = JSON.stringify(value);
  if (json === undefined || json.length <= cap) return value;
  truncated.push(path);
  return { $truncated: true, bytes: Buffer.byteLength(json), preview: json.slice(0, Math.max(0, cap - 100)) };
}

/** The workflow files a `workflows` path names: the file itself, or a directory's `*.json` specs and `*.js`/`*.mjs` modules (not `*.test.json`). */
export function workflowFilesIn(target: string): string[] {
  return statSync(target).isDirectory()
    ? readdirSync(target)
        .filter((f) => /\.(json|js|mjs)$/.test(f) && !f.endsWith('.test.json'))
        .sort()
        .map((f) => path.join(target, f))
    : [target];
}

/** Reads one JSON spec or DSL module (default export: a builder or a spec; optional `inject` export or `.app({inject})`). */
export async function loadWorkflowFile(file: string): Promise<{ spec: unknown; file: string; inject?: InjectFn }> {
  if (file.endsWith('.json')) return { spec: JSON.parse(readFileSync(file, 'utf8')), file };
  const mod = (await import(pathToFileURL(path.resolve(file)).href)) as { default?: unknown; inject?: InjectFn };
  const value = mod.default as { toJSON?: () => unknown; options?: { inject?: InjectFn } } | undefined;
  const spec = typeof value?.toJSON === 'function' ? value.toJSON() : value;
  return { spec, file, inject: mod.inject ?? value?.options?.inject };
}

/** Reads `*.json` specs and `*.js`/`*.mjs` DSL modules. */
export async function loadWorkflowFiles(target: string): Promise<Array<{ spec: unknown; file: string; inject?: InjectFn }>> {
  const out: Array<{ spec: unknown; file: string; inject?: InjectFn }> = [];
  for (const file of workflowFilesIn(target)) out.push(await loadWorkflowFile(file));
  return out;
}
