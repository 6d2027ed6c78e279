/** Regression tests: run a workflow in isolation with pinned fixtures and diff its output. */
import { runWorkflow, BudgetExceeded } from './engine.js';
import type { WorkflowSpec } from './spec.js';
import type { TestRecord } from './storage.js';

export interface DiffEntry {
  path: string;
  expected?: unknown;
  actual?: unknown;
  kind: 'changed' | 'missing' | 'unexpected';
}

export interface TestResult {
  id: string;
  name: string;
  workflow: string;
  status: 'passed' | 'failed' | 'error';
  diff: DiffEntry[];
  error?: { stepId?: string; code: string; message: string };
  /** The workflow's output (absent when it failed). */
  output?: unknown;
  durationMs: number;
}

function ignored(path: string, ignore: readonly string[]): boolean {
  return ignore.some((p) => path === p || path.startsWith(`${p}.`) || path.startsWith(`${p}[`));
}

/** A structural diff of two JSON values; paths are JSON paths (`$.a.b[0]`). */
export function structuralDiff(expected: unknown, actual: unknown, ignore: readonly string[] = [], path = '$', out: DiffEntry[] = []): DiffEntry[] {
  if (ignored(path, ignore)) return out;
  if (Array.isArray(expected) && Array.isArray(actual)) {
    const n = Math.max(expected.length, actual.length);
    for (let i = 0; i < n; i++) {
      const p = `${path}[${i}]`;
      if (i >= actual.length) {
        if (!ignored(p, ignore)) out.push({ path: p, expected: expected[i], kind: 'missing' });
      } else if (i >= expected.length) {
        if (!ignored(p, ignore)) out.push({ path: p, actual: actual[i], kind: 'unexpected' });
      } else structuralDiff(expected[i], actual[i], ignore, p, out);
    }
    return out;
  }
  const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (isObj(expected) && isObj(actual)) {
    for (const k of new Set([...Object.keys(expected), ...Object.keys(actual)])) {
      const p = `${path}.${k}`;
      if (!(k in actual)) {
        if (!ignored(p, ignore)) out.push({ path: p, expected: expected[k], kind: 'missing' });
      } else if (!(k in expected)) {
        if (!ignored(p, ignore)) out.push({ path: p, actual: actual[k], kind: 'unexpected' });
      } else structuralDiff(expected[k], actual[k], ignore, p, out);
    }
    return out;
  }
  if (expected !== actual) out.push({ path, expected, actual, kind: 'changed' });
  return out;
}

/** Runs one test against a spec; nothing is persisted. */
export async function runTest(
  test: Pick<TestRecord, 'id' | 'name' | 'workflow' | 'input' | 'attrs' | 'fixtures' | 'expected' | 'ignore'>,
  spec: WorkflowSpec | undefined,
  maxDurationMs: number,
  defaultTenant: string,
): Promise<TestResult> {
  const base = { id: test.id, name: test.name, workflow: test.workflow };
  if (!spec) return { ...base, status: 'error', diff: [], error: { code: 'workflow_not_found', message: `no workflow "${test.workflow}"` }, durationMs: 0 };
  try {
    const outcome = await runWorkflow(spec, {
      input: test.input ?? {},
      attrs: test.attrs ?? { tenant: defaultTenant },
      fixtures: test.fixtures,
      maxDurationMs,
    });
    if (outcome.status === 'failed') return { ...base, status: 'failed', diff: [], error: outcome.error, durationMs: outcome.durationMs };
    const diff = structuralDiff(test.expected, outcome.output, test.ignore ?? []);
    return { ...base, status: diff.length === 0 ? 'passed' : 'failed', diff, output: outcome.output, durationMs: outcome.durationMs };
  } catch (err) {
    const code = err instanceof BudgetExceeded ? 'execution_budget_exceeded' : 'error';
    return { ...base, status: 'error', diff: [], error: { code, message: (err as Error).message }, durationMs: 0 };
  }
}
