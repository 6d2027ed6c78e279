/**
 * `tessera test`: regression tests kept as files beside the workflows, run in the manner of snapshot
 * testing. A `*.test.json` file holds one test or an array of them: `{name?, workflow, input?,
 * attrs?, fixtures?, expected?, ignore?}`. `--mode compare` runs each test in isolation (no server,
 * no store, fixtures pin step outputs) and compares the output with `expected` structurally,
 * skipping the `ignore` paths; `--mode record` writes each output into `expected` instead.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'tessera-runtime/plugin';
import { runTest, type TestResult } from './regress.js';
import type { WorkflowSpec } from './spec.js';

const testSchema = z
  .object({
    name: z.string().min(1).optional(),
    workflow: z.string().min(1),
    input: z.unknown().optional(),
    attrs: z.record(z.string(), z.unknown()).optional(),
    fixtures: z.record(z.string(), z.unknown()).optional(),
    expected: z.unknown().optional(),
    ignore: z.array(z.string().regex(/^\$/, 'a JSON path starting with $')).optional(),
  })
  .strict();

export type TestFileEntry = z.output<typeof testSchema>;

export interface FileTestResult extends TestResult {
  file: string;
  recorded?: boolean;
}

/** The `*.test.json` files of a workflows path (its directory when it names a file). */
export function testFilesIn(target: string): string[] {
  const dir = statSync(target).isDirectory() ? target : path.dirname(target);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.test.json'))
    .sort()
    .map((f) => path.join(dir, f));
}

export async function runTestFiles(
  files: readonly string[],
  specs: ReadonlyMap<string, WorkflowSpec>,
  options: { mode: 'compare' | 'record'; maxDurationMs: number; defaultTenant: string; shown: (file: string) => string },
): Promise<FileTestResult[]> {
  const results: FileTestResult[] = [];
  for (const file of files) {
    const shown = options.shown(file);
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(file, 'utf8'));
    } catch (err) {
      results.push(errorResult(shown, shown, '', 'invalid_test', `not valid JSON: ${(err as Error).message}`));
      continue;
    }
    const many = Array.isArray(raw);
    const entries = many ? (raw as unknown[]) : [raw];
    let rewrite = false;
    for (const [i, entry] of entries.entries()) {
      const at = many ? `$[${i}]` : '$';
      const parsed = testSchema.safeParse(entry);
      const fallback = `${path.basename(file, '.test.json')}${many ? ` #${i + 1}` : ''}`;
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        const where = `${at}${issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('')}`;
        results.push(errorResult(shown, fallback, '', 'invalid_test', `${where}: ${issue.message}`));
        continue;
      }
      const t = parsed.data;
      const name = t.name ?? fallback;
      const spec = specs.get(t.workflow);
      if (options.mode === 'compare' && t.expected === undefined && spec) {
        results.push(errorResult(shown, name, t.workflow, 'no_expected_output', 'the test has no "expected" output yet: run with --mode record to write it'));
        continue;
      }
      const result = await runTest(
        {
          id: `${shown}${many ? `#${i}` : ''}`,
          name,
          workflow: t.workflow,
          input: t.input,
          attrs: t.attrs,
          fixtures: t.fixtures ?? {},
          expected: t.expected,
          ignore: t.ignore ?? [],
        },
        spec,
        options.maxDurationMs,
        options.defaultTenant,
      );
      if (options.mode === 'record' && result.output !== undefined && !result.error) {
        (entries[i] as Record<string, unknown>).expected = result.output;
        rewrite = true;
        results.push({ ...result, status: 'passed', diff: [], file: shown, recorded: true });
      } else results.push({ ...result, file: shown });
    }
    if (rewrite) writeFileSync(file, `${JSON.stringify(many ? entries : entries[0], null, 2)}\n`);
  }
  return results;
}

function errorResult(file: string, name: string, workflow: string, code: string, message: string): FileTestResult {
  return { id: file, file, name, workflow, status: 'error', diff: [], error: { code, message }, durationMs: 0 };
}

const show = (v: unknown): string => (v === undefined ? '(absent)' : JSON.stringify(v));

/** One line per test (PASS, FAIL, ERROR or RECORDED), the diff under a failure, and a summary. */
export function formatTestResults(results: readonly FileTestResult[]): string {
  const lines: string[] = [];
  for (const r of results) {
    const label = r.recorded ? 'RECORDED' : r.status === 'passed' ? 'PASS' : r.status === 'failed' ? 'FAIL' : 'ERROR';
    lines.push(`${label} ${r.file} > ${r.name} (${Math.round(r.durationMs)} ms)`);
    for (const d of r.diff) lines.push(`    ${d.path}: expected ${show(d.expected)}, got ${show(d.actual)} (${d.kind})`);
    if (r.error) lines.push(`    ${r.error.stepId ? `step ${r.error.stepId}: ` : ''}${r.error.code}: ${r.error.message}`);
  }
  const count = (s: string) => results.filter((r) => r.status === s).length;
  const recorded = results.filter((r) => r.recorded).length;
  const parts = [
    recorded ? `${recorded} recorded` : '',
    count('failed') ? `${count('failed')} failed` : '',
    count('error') ? `${count('error')} errors` : '',
    `${count('passed') - recorded} passed`,
  ].filter(Boolean);
  lines.push(`Tests: ${parts.join(', ')}, ${results.length} total`);
  return `${lines.join('\n')}\n`;
}
