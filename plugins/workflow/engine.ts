/**
 * The engine: runs a validated spec over a working object. Steps run in order; fanOut branches run
 * concurrently and then join; a failure stops the execution and carries the failing step's id.
 * Every step that runs is recorded in a timeline (queue wait, duration, status, output, error).
 */
import { configSchemas, type JoinSpec, type StepSpec, type WorkflowSpec } from './spec.js';
import { evalCondition } from './expr.js';
import { render, type Scope } from './template.js';

export type StepStatus = 'completed' | 'failed';

export interface StepRecord {
  id: string;
  kind: string;
  /** The enclosing step's id, for nested steps. */
  parent?: string;
  status: StepStatus;
  startedAt: string;
  /** Milliseconds between the step becoming ready and starting. */
  queueWaitMs: number;
  durationMs: number;
  attempts: number;
  output?: unknown;
  error?: { code: string; message: string };
  /** `when` and `branch`: which path was taken. */
  decision?: string;
  /** Set when a fixture pinned this step's output (regression tests). */
  pinned?: true;
}

export interface ExecutionOutcome {
  status: 'completed' | 'failed';
  output: unknown;
  steps: StepRecord[];
  error?: { stepId: string; code: string; message: string };
  durationMs: number;
}

export interface RunOptions {
  input: unknown;
  attrs: Record<string, unknown>;
  /** The value of `{{now}}` (default: the start time as ISO 8601). */
  now?: string;
  /** Outputs pinned by step id: the step is not run, its output is the fixture. */
  fixtures?: Record<string, unknown>;
  /** Total time budget in milliseconds. */
  maxDurationMs?: number;
  signal?: AbortSignal;
}

export class StepFailure extends Error {
  constructor(
    readonly stepId: string,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export class BudgetExceeded extends Error {
  constructor(
    readonly limit: string,
    readonly value: number,
  ) {
    super(`execution exceeded its ${limit} budget (${value})`);
  }
}

interface RunState {
  scope: Scope;
  records: StepRecord[];
  fixtures?: Record<string, unknown>;
  signal: AbortSignal;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function merge(base: unknown, extra: unknown): unknown {
  if (!isObject(extra)) return extra;
  return isObject(base) ? { ...base, ...extra } : { ...extra };
}

async function runSequence(steps: readonly StepSpec[], input: unknown, state: RunState, parent: string | undefined, readyAt: number): Promise<unknown> {
  let current = input;
  let ready = readyAt;
  for (const step of steps) {
    current = await runStep(step, current, state, parent, ready);
    ready = performance.now();
  }
  return current;
}

async function runStep(step: StepSpec, input: unknown, state: RunState, parent: string | undefined, readyAt: number): Promise<unknown> {
  if (state.signal.aborted) throw state.signal.reason;
  const started = performance.now();
  const record: StepRecord = {
    id: step.id,
    kind: step.kind,
    ...(parent ? { parent } : {}),
    status: 'completed',
    startedAt: new Date().toISOString(),
    queueWaitMs: round(started - readyAt),
    durationMs: 0,
    attempts: 0,
  };
  state.records.push(record);
  try {
    let output: unknown;
    if (state.fixtures && Object.prototype.hasOwnProperty.call(state.fixtures, step.id)) {
      output = state.fixtures[step.id];
      record.pinned = true;
      record.attempts = 1;
    } else {
      output = await withRetry(step, record, state, (s) => execute(step, input, s, record));
    }
    record.output = output;
    state.scope.steps[step.id] = output;
    return output;
  } catch (err) {
    record.status = 'failed';
    if (err instanceof StepFailure) {
      record.error = { code: err.code, message: err.message };
      throw err;
    }
    if (err instanceof BudgetExceeded) {
      record.error = { code: 'execution_budget_exceeded', message: err.message };
      throw err;
    }
    const failure = new StepFailure(step.id, 'step_error', (err as Error)?.message ?? String(err));
    record.error = { code: failure.code, message: failure.message };
    throw failure;
  } finally {
    record.durationMs = round(performance.now() - started);
  }
}

async function withRetry(step: StepSpec, record: StepRecord, state: RunState, fn: (s: RunState) => Promise<unknown>): Promise<unknown> {
  const attempts = step.retry?.attempts ?? 1;
  let backoff = step.retry?.backoffMs ?? 100;
  const factor = step.retry?.factor ?? 2;
  for (let attempt = 1; ; attempt++) {
    record.attempts = attempt;
    try {
      return step.timeoutMs === undefined ? await fn(state) : await withTimeout(step, state, fn);
    } catch (err) {
      // Nested failures belong to the nested step; budget and cancellation are never retried.
      const own = err instanceof StepFailure && err.stepId === step.id;
      if (!own || attempt >= attempts || state.signal.aborted) throw err;
      await sleep(backoff, state.signal);
      backoff *= factor;
    }
  }
}

async function withTimeout(step: StepSpec, state: RunState, fn: (s: RunState) => Promise<unknown>): Promise<unknown> {
  const ms = step.timeoutMs!;
  const controller = new AbortController();
  const outer = state.signal;
  const onOuter = (): void => controller.abort(outer.reason);
  outer.addEventListener('abort', onOuter, { once: true });
  const timer = setTimeout(() => controller.abort(new StepFailure(step.id, 'step_timeout', `step "${step.id}" timed out after ${ms} ms`)), ms);
  const inner: RunState = { ...state, signal: controller.signal };
  try {
    return await Promise.race([
      fn(inner),
      new Promise((_, reject) => controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true })),
    ]);
  } finally {
    clearTimeout(timer);
    outer.removeEventListener('abort', onOuter);
  }
}

const parsedConfigs = new WeakMap<StepSpec, Record<string, any>>();

async function execute(step: StepSpec, input: unknown, state: RunState, record: StepRecord): Promise<unknown> {
  const scope: Scope = { ...state.scope, input };
  let config = parsedConfigs.get(step);
  if (config === undefined) {
    config = configSchemas[step.kind].parse(step.config ?? {}) as Record<string, any>;
    parsedConfigs.set(step, config);
  }
  switch (step.kind) {
    case 'map': {
      const out = render(config.set, scope);
      return config.mergeInput ? merge(input, out) : out;
    }
    case 'mock': {
      await sleep(config.delayMs, state.signal);
      if (config.error !== undefined) throw new StepFailure(step.id, 'mock_error', config.error);
      if (config.failTimes !== undefined && record.attempts <= config.failTimes)
        throw new StepFailure(step.id, 'mock_error', `mock failure ${record.attempts} of ${config.failTimes}`);
      const out = render(config.response, scope);
      return config.mergeInput ? merge(input, out) : out;
    }
    case 'when': {
      const matched = evalCondition(config.condition, scope);
      record.decision = matched ? 'matched' : 'skipped';
      return matched ? runSequence(step.steps ?? [], input, state, step.id, performance.now()) : input;
    }
    case 'branch': {
      const cases = config.cases as Array<{ when: string; steps: StepSpec[] }>;
      for (let i = 0; i < cases.length; i++) {
        if (evalCondition(cases[i]!.when, scope)) {
          record.decision = `case ${i}`;
          return runSequence(cases[i]!.steps, input, state, step.id, performance.now());
        }
      }
      record.decision = 'default';
      return runSequence(config.default as StepSpec[], input, state, step.id, performance.now());
    }
    case 'fanOut':
      return fanOut(step, input, state);
  }
}

async function fanOut(step: StepSpec, input: unknown, state: RunState): Promise<unknown> {
  const join = step.join as JoinSpec;
  const branches = step.branches ?? [];
  const ready = performance.now();
  const controller = new AbortController();
  const onOuter = (): void => controller.abort(state.signal.reason);
  state.signal.addEventListener('abort', onOuter, { once: true });
  const inner: RunState = { ...state, signal: controller.signal };
  const joinStarted = (): number => performance.now();
  try {
    let outputs: unknown[];
    if (join.kind === 'first') {
      const first = await Promise.any(branches.map((b) => runSequence(b, input, inner, step.id, ready))).catch((err: AggregateError) => {
        throw err.errors[0];
      });
      controller.abort(new Error('another branch finished first'));
      outputs = [first];
    } else {
      const settled = await Promise.allSettled(branches.map((b) => runSequence(b, input, inner, step.id, ready)));
      const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
      if (failed) throw failed.reason;
      outputs = settled.map((s) => (s as PromiseFulfilledResult<unknown>).value);
    }
    const t0 = joinStarted();
    let out: unknown;
    if (join.kind === 'array') out = merge(input, { [join.id]: outputs });
    else {
      out = isObject(input) ? { ...input } : {};
      for (const o of outputs) out = merge(out, o);
    }
    state.records.push({
      id: join.id,
      kind: join.kind,
      parent: step.id,
      status: 'completed',
      startedAt: new Date().toISOString(),
      queueWaitMs: 0,
      durationMs: round(performance.now() - t0),
      attempts: 1,
      output: out,
    });
    state.scope.steps[join.id] = out;
    return out;
  } finally {
    state.signal.removeEventListener('abort', onOuter);
  }
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/** Runs a workflow. Never throws for a step failure: the outcome says `failed` with the step id. */
export async function runWorkflow(spec: Pick<WorkflowSpec, 'steps'>, options: RunOptions): Promise<ExecutionOutcome> {
  const started = performance.now();
  const controller = new AbortController();
  const budget = options.maxDurationMs;
  const timer = budget === undefined ? undefined : setTimeout(() => controller.abort(new BudgetExceeded('time', budget)), budget);
  const onOuter = (): void => controller.abort(options.signal!.reason);
  options.signal?.addEventListener('abort', onOuter, { once: true });
  const state: RunState = {
    scope: { input: options.input, attrs: options.attrs, steps: Object.create(null) as Record<string, unknown>, now: options.now ?? new Date().toISOString() },
    records: [],
    fixtures: options.fixtures,
    signal: controller.signal,
  };
  try {
    const output = await runSequence(spec.steps, options.input, state, undefined, started);
    return { status: 'completed', output, steps: state.records, durationMs: round(performance.now() - started) };
  } catch (err) {
    if (err instanceof BudgetExceeded) throw err;
    if (err instanceof StepFailure) {
      return {
        status: 'failed',
        output: undefined,
        steps: state.records,
        error: { stepId: err.stepId, code: err.code, message: err.message },
        durationMs: round(performance.now() - started),
      };
    }
    if (controller.signal.reason instanceof BudgetExceeded) throw controller.signal.reason;
    throw err;
  } finally {
    if (timer) clearTimeout(timer);
    options.signal?.removeEventListener('abort', onOuter);
  }
}
