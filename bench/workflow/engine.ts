/** In-process engine overhead: a chain of `map` steps run by runWorkflow, no HTTP, no store. */
import { runWorkflow } from '../../plugins/workflow/engine.js';
import type { StepSpec } from '../../plugins/workflow/spec.js';

export function mapChain(n: number): StepSpec[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `m${i}`,
    kind: 'map' as const,
    config: { set: { [`f${i}`]: '{{input.customer}}', [`t${i}`]: '{{attrs.tenant}}', [`n${i}`]: i }, mergeInput: true },
  }));
}

const quantile = (sorted: number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

/** Times `iterations` executions of an n-step chain; returns per-execution p50/p99 in microseconds. */
export async function timeChain(n: number, iterations: number): Promise<{ p50Us: number; p99Us: number; meanUs: number }> {
  const spec = { steps: mapChain(n) };
  const run = () => runWorkflow(spec, { input: { customer: 'ann', amount: 5 }, attrs: { tenant: 'default' }, maxDurationMs: 30_000 });
  // Check the answer before timing anything.
  const check = await run();
  const out = check.output as Record<string, unknown>;
  if (check.status !== 'completed' || out[`f${n - 1}`] !== 'ann' || out[`t${n - 1}`] !== 'default' || check.steps.length !== n)
    throw new Error(`the ${n}-step chain answered ${JSON.stringify(check)}`);
  for (let i = 0; i < Math.min(5000, iterations); i++) await run();
  const times: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const t = process.hrtime.bigint();
    await run();
    times.push(Number(process.hrtime.bigint() - t) / 1000);
  }
  times.sort((a, b) => a - b);
  const meanUs = times.reduce((a, b) => a + b, 0) / times.length;
  return { p50Us: quantile(times, 0.5), p99Us: quantile(times, 0.99), meanUs };
}
