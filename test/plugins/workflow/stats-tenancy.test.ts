import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type Answer } from '../rbac/helpers.js';
import { startWorkflow, type WfApp } from './helpers.js';

// Two tenants may each have a workflow with the same id (their routes differ: the listener has one
// route space). The hub's execution counts and latencies are each tenant's own.
describe('workflow statistics per tenant', () => {
  let w: WfApp;
  const keys: Record<string, string> = {};
  const as = (tenant: string, method: string, path: string, body?: unknown): Promise<Answer> => call(w.base, method, path, { key: keys[tenant], body });
  const quote = (tenant: string, delayMs: number) => ({
    name: 'quote',
    route: { method: 'POST', path: `/${tenant}/quote` },
    steps: [{ id: 'price', kind: 'mock', config: { response: { price: 12 }, delayMs } }],
  });

  beforeAll(async () => {
    w = await startWorkflow({ retention: { pruneEvery: 1000 } });
    for (const tenant of ['north', 'south']) {
      const headers = { 'x-tenant': tenant };
      const user = await w.call('POST', '/hub/rbac/users', { headers, body: { name: `${tenant}-admin`, roles: ['admin'] } });
      const key = await w.call('POST', '/hub/rbac/keys', { headers, body: { name: `${tenant} key`, userId: user.body.user.id } });
      if (key.status !== 201) throw new Error(JSON.stringify(key.body));
      keys[tenant] = key.body.secret;
    }
    expect((await as('north', 'POST', '/hub/workflows', quote('north', 0))).status).toBe(201);
    // South's runs take at least 150 ms each: a floor, so its latencies cannot be mistaken for north's.
    expect((await as('south', 'POST', '/hub/workflows', quote('south', 150))).status).toBe(201);
    for (let i = 0; i < 3; i++) expect((await call(w.base, 'POST', '/north/quote', { body: {} })).status).toBe(200);
    expect((await call(w.base, 'POST', '/south/quote', { body: {} })).status).toBe(200);
  });
  afterAll(() => w?.stop());

  it("counts in /hub/metrics only the tenant's own executions of a same-named workflow", async () => {
    const north = await as('north', 'GET', '/hub/metrics');
    expect(north.status).toBe(200);
    expect(north.body.workflows).toEqual([
      { id: 'quote', executions: { completed: 3 }, latencyMs: { p50: expect.any(Number), p95: expect.any(Number), p99: expect.any(Number) } },
    ]);
    expect(north.body.storedExecutions).toBe(3);

    const south = await as('south', 'GET', '/hub/metrics');
    expect(south.body.workflows).toEqual([
      { id: 'quote', executions: { completed: 1 }, latencyMs: { p50: expect.any(Number), p95: expect.any(Number), p99: expect.any(Number) } },
    ]);
    expect(south.body.storedExecutions).toBe(1);
    // Every percentile of south is its one run, slower than the mock's floor; north's fast runs are not in it.
    const { p50, p95, p99 } = south.body.workflows[0].latencyMs;
    for (const p of [p50, p95, p99]) expect(p).toBeGreaterThanOrEqual(150);
  });

  it("shows in /hub/apis only the tenant's own executions and last run", async () => {
    const north = await as('north', 'GET', '/hub/apis');
    expect(north.body.apis).toHaveLength(1);
    expect(north.body.apis[0]).toMatchObject({ id: 'quote', live: true, executions: { completed: 3 }, lastExecution: { status: 'completed' } });
    const south = await as('south', 'GET', '/hub/apis');
    expect(south.body.apis).toHaveLength(1);
    expect(south.body.apis[0]).toMatchObject({ id: 'quote', live: true, executions: { completed: 1 }, lastExecution: { status: 'completed' } });
    expect(south.body.apis[0].lastExecution.durationMs).toBeGreaterThanOrEqual(150);
    expect(north.body.apis[0].lastExecution.id).not.toBe(south.body.apis[0].lastExecution.id);
  });
});
