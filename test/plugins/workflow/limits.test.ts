import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorkflow, type WfApp } from './helpers.js';

const invoke = (base: string, path: string, body: string) => fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
const spec = (name: string, steps: unknown[]) => ({ name, route: { method: 'POST', path: `/${name}` }, searchFields: ['customer'], steps });

// Issue 17: input size, step count and total time are limited, over a limit is a 4xx and never a
// crash; traces are pruned by count per tenant and stored step data is capped, truncation marked.
describe('workflow budgets and retention over HTTP', () => {
  let w: WfApp;
  beforeAll(async () => {
    w = await startWorkflow({
      limits: { maxInputBytes: 2048, maxSteps: 3, maxDurationMs: 150 },
      retention: { maxPerTenant: 5, pruneEvery: 1, maxStepDataBytes: 256 },
    });
    const slow = spec('slow', [{ id: 'wait', kind: 'mock', config: { response: { done: true }, delayMs: 5_000 } }]);
    const echo = spec('echo', [{ id: 'copy', kind: 'map', config: { set: { blob: '{{input.blob}}' }, mergeInput: true } }]);
    for (const s of [slow, echo]) expect((await w.call('POST', '/hub/workflows', { body: s })).status).toBe(201);
  });
  afterAll(() => w.stop());

  it('answers 422 over the time budget, 413 over the input size and 400 over the step count, and keeps serving', async () => {
    const t0 = performance.now();
    const slow = await invoke(w.base, '/slow', '{}');
    expect(performance.now() - t0).toBeLessThan(3_000);
    expect(slow.status).toBe(422);
    const body = (await slow.json()) as any;
    expect(body.error).toMatchObject({
      code: 'execution_budget_exceeded',
      details: { executionId: slow.headers.get('x-execution-id'), limit: 'time', value: 150 },
    });
    const trace = await w.call('GET', `/hub/traces/${body.error.details.executionId}`);
    expect(trace.body.trace).toMatchObject({ workflow: 'slow', status: 'failed', error: { code: 'execution_budget_exceeded' } });

    const big = await invoke(w.base, '/echo', JSON.stringify({ blob: 'x'.repeat(4096) }));
    expect(big.status).toBe(413);
    expect(((await big.json()) as any).error.code).toBe('body_too_large');

    const steps = Array.from({ length: 4 }, (_, i) => ({ id: `m${i}`, kind: 'map', config: { set: {} } }));
    const many = await w.call('POST', '/hub/workflows', { body: spec('many', steps) });
    expect(many.status).toBe(400);
    expect(many.body.error.code).toBe('invalid_workflow');
    expect(many.body.error.details.errors).toEqual([expect.objectContaining({ path: '$.steps', message: expect.stringContaining('3') })]);

    expect((await fetch(`${w.base}/health`)).status).toBe(200);
    expect((await invoke(w.base, '/echo', JSON.stringify({ blob: 'ok' }))).status).toBe(200);
  });

  it('prunes traces to maxPerTenant and caps stored data at maxStepDataBytes, marking what it cut', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await invoke(w.base, '/echo', JSON.stringify({ customer: `c${i}`, blob: 'y'.repeat(1000) }));
      expect(res.status).toBe(200);
      expect(((await res.json()) as any).blob).toHaveLength(1000);
      ids.push(res.headers.get('x-execution-id')!);
    }
    let traces: any[] = [];
    for (let i = 0; i < 50; i++) {
      traces = (await w.call('GET', '/hub/traces?limit=50')).body.traces;
      if (traces.length <= 5) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    // The newest five are kept, oldest pruned first.
    expect(traces.map((t) => t.id)).toEqual(ids.slice(-5).reverse());
    expect((await w.call('GET', `/hub/traces/${ids[0]}`)).status).toBe(404);
    expect((await w.call('GET', '/hub/traces?field.customer=c0')).body.traces).toEqual([]);

    const kept = traces[0];
    expect(kept.truncated).toEqual(['$.input', '$.output', '$.steps[0].output']);
    expect(kept.input).toEqual({ $truncated: true, bytes: expect.any(Number), preview: expect.any(String) });
    expect(kept.input.bytes).toBe(Buffer.byteLength(JSON.stringify({ customer: 'c11', blob: 'y'.repeat(1000) })));
    expect(kept.input.preview.length).toBeLessThanOrEqual(256);
    expect(kept.fields).toEqual({ customer: 'c11' });
  });
});
