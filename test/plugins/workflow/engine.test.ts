import { describe, expect, it } from 'vitest';
import { runWorkflow } from '../../../plugins/workflow/engine.js';
import { evalCondition, parseExpr } from '../../../plugins/workflow/expr.js';
import { validateSpec } from '../../../plugins/workflow/validate.js';
import { renderString } from '../../../plugins/workflow/template.js';
import { seedExample } from './fixtures.js';

const scope = (input: unknown) => ({ input, attrs: { tenant: 't1' }, steps: {}, now: '2026-01-01T00:00:00.000Z' });

describe('templates', () => {
  it('keep the type of a whole-string template and stringify inside text', () => {
    expect(renderString('{{input.n}}', scope({ n: 5 }))).toBe(5);
    expect(renderString('{{input.o}}', scope({ o: { a: 1 } }))).toEqual({ a: 1 });
    expect(renderString('n={{input.n}} t={{attrs.tenant}}', scope({ n: 5 }))).toBe('n=5 t=t1');
    expect(renderString('{{now}}', scope({}))).toBe('2026-01-01T00:00:00.000Z');
  });
  it('refuse prototype paths', () => {
    expect(() => renderString('{{input.__proto__}}', scope({}))).toThrow(/not allowed/);
    expect(() => renderString('{{input.constructor.name}}', scope({}))).toThrow(/not allowed/);
    expect(renderString('{{input.toString}}', scope({}))).toBeUndefined();
  });
});

describe('conditions', () => {
  it('compare, combine and test membership', () => {
    expect(evalCondition('{{input.amount}} > 100', scope({ amount: 150 }))).toBe(true);
    expect(evalCondition('{{input.amount}} > 100', scope({ amount: 50 }))).toBe(false);
    expect(evalCondition('{{input.amount}} > 100', scope({ amount: '150' }))).toBe(false);
    expect(evalCondition('{{input.a}} == "x" && !({{input.b}} <= 2) || false', scope({ a: 'x', b: 3 }))).toBe(true);
    expect(evalCondition('{{input.c}} in ["eu", "us"]', scope({ c: 'eu' }))).toBe(true);
    expect(evalCondition('{{input.c}} in ["eu", "us"]', scope({ c: 'cn' }))).toBe(false);
    expect(evalCondition('{{input.missing}} == null', scope({}))).toBe(true);
    expect(evalCondition("'ab' in {{input.s}}", scope({ s: 'xaby' }))).toBe(true);
  });
  it('run no code: names, calls and prototype paths are refused', () => {
    expect(() => parseExpr('process == 1')).toThrow(/unknown name "process"/);
    expect(() => parseExpr('process.exit(1)')).toThrow();
    expect(() => parseExpr('constructor.constructor("return 1")()')).toThrow();
    expect(() => parseExpr('{{input.__proto__.polluted}} == 1')).toThrow(/not allowed/);
    expect(() => parseExpr('{{input.a.constructor}}')).toThrow(/not allowed/);
    expect(() => parseExpr('{{input.a}}; 1')).toThrow(/unexpected character/);
    expect(() => parseExpr('`${1}`')).toThrow();
    expect(() => parseExpr('{{input.a}} >')).toThrow(/unexpected end/);
  });
});

describe('static validation', () => {
  it('accepts the seed example', () => {
    expect(validateSpec(seedExample())).toMatchObject({ valid: true, errors: [] });
  });
  it('reports schema errors, duplicate ids, bad templates, unparsable conditions and unreachable references with JSON paths', () => {
    const spec = seedExample() as any;
    spec.steps[2].branches[1][0].id = 'a';
    spec.steps[1].config.condition = '{{input.amount}} >> 100';
    spec.steps[0].config.set.x = '{{steps.quotes.price}}';
    spec.steps[0].config.set.y = '{{attrs.region}}';
    spec.steps[3].config.cases[0].steps = [{ id: 'late', kind: 'map', config: { set: { v: '{{steps.flag.review}}' } } }];
    const r = validateSpec(spec);
    expect(r.valid).toBe(false);
    const byPath = Object.fromEntries(r.errors.map((e) => [e.path, e.message]));
    expect(byPath['$.steps[2].branches[1][0].id']).toMatch(/already used/);
    expect(byPath['$.steps[1].config.condition']).toMatch(/does not parse/);
    expect(byPath['$.steps[0].config.set.x']).toMatch(/no step "quotes" before/);
    expect(byPath['$.steps[0].config.set.y']).toMatch(/no attribute "region"/);
    expect(byPath['$.steps[3].config.cases[0].steps[0].config.set.v']).toMatch(/not run on every path/);
    expect(validateSpec({ name: 'x', route: { method: 'POST', path: 'nope' }, steps: [{ id: 'a', kind: 'teleport' }] }).errors).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: '$.steps[0].kind' })]),
    );
    expect(validateSpec({ ...seedExample(), route: { method: 'POST', path: '/hub/x' } }).errors[0]).toMatchObject({ path: '$.route.path' });
    expect(validateSpec({ ...seedExample(), route: { method: 'FETCH', path: '/x' } }).errors[0]).toMatchObject({ path: '$.route.method' });
    const taken = new Map([['POST /orders', 'other']]);
    expect(validateSpec(seedExample(), { takenRoutes: taken })).toMatchObject({ valid: false, collision: { workflow: 'other' } });
  });
});

describe('engine', () => {
  it('runs the seed example: map, when, fanOut with merge join and branch', async () => {
    const out = await runWorkflow(validateSpec(seedExample()).spec!, { input: { customer: 'ann', amount: 150 }, attrs: { tenant: 'acme' } });
    expect(out.status).toBe('completed');
    expect(out.output).toMatchObject({ customer: 'ann', amount: 150, tenant: 'acme', review: true, price: 12 });
    expect(typeof (out.output as any).at).toBe('string');
    expect(out.steps.map((s) => s.id)).toEqual(['enrich', 'big', 'flag', 'quotes', 'a', 'b', 'best', 'route']);
    const b = out.steps.find((s) => s.id === 'b')!;
    expect(b.durationMs).toBeGreaterThanOrEqual(25);
    // Branches ran concurrently: b started before a (20 ms) had finished, whatever the machine's load.
    const a = out.steps.find((s) => s.id === 'a')!;
    // (In sequence, b would start a's whole duration, at least 20 ms, after a.)
    expect(Date.parse(b.startedAt) - Date.parse(a.startedAt)).toBeLessThan(a.durationMs - 5);
    const small = await runWorkflow(validateSpec(seedExample()).spec!, { input: { customer: 'bo', amount: 5 }, attrs: { tenant: 'default' } });
    expect((small.output as any).review).toBeUndefined();
  });

  it('propagates a failure with the step id, retries and times out', async () => {
    const fail = await runWorkflow(
      {
        steps: [
          { id: 'x', kind: 'mock', config: { error: 'boom' } },
          { id: 'y', kind: 'map', config: { set: {} } },
        ],
      } as any,
      { input: {}, attrs: {} },
    );
    expect(fail).toMatchObject({ status: 'failed', error: { stepId: 'x', code: 'mock_error', message: 'boom' } });
    expect(fail.steps.map((s) => s.id)).toEqual(['x']);
    const retried = await runWorkflow(
      { steps: [{ id: 'r', kind: 'mock', config: { failTimes: 2, response: { ok: 1 } }, retry: { attempts: 3, backoffMs: 1, factor: 2 } }] } as any,
      { input: {}, attrs: {} },
    );
    expect(retried).toMatchObject({ status: 'completed', output: { ok: 1 }, steps: [{ id: 'r', attempts: 3 }] });
    const slow = await runWorkflow({ steps: [{ id: 's', kind: 'mock', config: { delayMs: 500 }, timeoutMs: 20 }] } as any, { input: {}, attrs: {} });
    expect(slow).toMatchObject({ status: 'failed', error: { stepId: 's', code: 'step_timeout' } });
    await expect(
      runWorkflow({ steps: [{ id: 's', kind: 'mock', config: { delayMs: 500 } }] } as any, { input: {}, attrs: {}, maxDurationMs: 20 }),
    ).rejects.toThrow(/time budget/);
  });

  it('joins as array and first, and pins fixtures', async () => {
    const spec = (kind: string) => ({
      steps: [
        {
          id: 'f',
          kind: 'fanOut',
          branches: [
            [{ id: 'a', kind: 'mock', config: { response: { p: 1 }, delayMs: 40 } }],
            [{ id: 'b', kind: 'mock', config: { response: { p: 2 }, delayMs: 5 } }],
          ],
          join: { id: 'j', kind },
        },
      ],
    });
    expect((await runWorkflow(spec('array') as any, { input: { q: 1 }, attrs: {} })).output).toEqual({ q: 1, j: [{ p: 1 }, { p: 2 }] });
    expect((await runWorkflow(spec('first') as any, { input: { q: 1 }, attrs: {} })).output).toEqual({ q: 1, p: 2 });
    expect((await runWorkflow(spec('merge') as any, { input: {}, attrs: {}, fixtures: { a: { p: 9, pinned: true } } })).output).toEqual({ p: 2, pinned: true });
  });
});

describe('docs/workflow.schema.json', () => {
  it('is the JSON Schema generated from the spec schema', async () => {
    const { readFileSync } = await import('node:fs');
    const { workflowJsonSchema } = await import('../../../plugins/workflow/spec.js');
    const onDisk = JSON.parse(readFileSync(new URL('../../../docs/workflow.schema.json', import.meta.url), 'utf8'));
    expect(onDisk).toEqual(workflowJsonSchema());
  });
});
