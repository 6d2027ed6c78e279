import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../rbac/helpers.js';
import { seedExample } from './fixtures.js';
import { startWorkflow, type WfApp } from './helpers.js';

const invoke = (base: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

describe('workflow plugin over HTTP', () => {
  let w: WfApp;
  beforeAll(async () => {
    w = await startWorkflow({ retention: { pruneEvery: 1000 } });
  });
  afterAll(() => w.stop());

  it('creates the seed example and serves it at once: map, when, fanOut+join, mock delay, tenant from x-tenant-id', async () => {
    const created = await w.call('POST', '/hub/workflows', { body: seedExample() });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      ok: true,
      workflow: { id: 'orders', name: 'orders', version: '1', route: { method: 'POST', path: '/orders' }, tags: ['demo'], searchFields: ['customer'] },
    });
    expect(typeof created.body.workflow.createdAt).toBe('string');

    const t0 = performance.now();
    const res = await invoke(w.base, '/orders', { customer: 'ann', amount: 150 }, { 'x-tenant-id': 'acme' });
    const elapsed = performance.now() - t0;
    expect(res.status).toBe(200);
    const id = res.headers.get('x-execution-id');
    expect(id).toMatch(/^ex/);
    expect(res.headers.get('content-type')).toBe('application/json;charset=UTF-8');
    const out = (await res.json()) as any;
    expect(out).toMatchObject({ customer: 'ann', amount: 150, tenant: 'acme', review: true, price: 12 });
    expect(Date.parse(out.at)).toBeGreaterThan(Date.now() - 60_000);
    expect(elapsed).toBeGreaterThanOrEqual(30);

    const small = (await (await invoke(w.base, '/orders', { customer: 'bo', amount: 5 })).json()) as any;
    expect(small.review).toBeUndefined();
    expect(small.tenant).toBe('default');

    const trace = await w.call('GET', `/hub/traces/${id}`);
    expect(trace.body.trace).toMatchObject({ id, workflow: 'orders', status: 'completed', fields: { customer: 'ann' }, attrs: { tenant: 'acme' } });
    const b = trace.body.trace.steps.find((s: any) => s.id === 'b');
    expect(b).toMatchObject({ kind: 'mock', status: 'completed', output: { price: 12 }, parent: 'quotes' });
    expect(b.durationMs).toBeGreaterThanOrEqual(25);
    expect(typeof b.queueWaitMs).toBe('number');
  });

  it('validates without executing and refuses invalid specs and colliding routes', async () => {
    const bad = { ...seedExample(), name: 'bad', steps: [{ id: 'x', kind: 'when', config: { condition: '{{input.a}} >' }, steps: [] }] };
    const v = await w.call('POST', '/hub/workflows/validate', { body: bad });
    expect(v.status).toBe(200);
    expect(v.body).toMatchObject({ ok: true, valid: false });
    expect(v.body.errors).toEqual(
      expect.arrayContaining([
        { path: '$.steps[0].config.condition', message: expect.stringMatching(/does not parse/) },
        { path: '$.route', message: expect.stringMatching(/already served/) },
      ]),
    );
    expect((await w.call('POST', '/hub/workflows/validate', { body: seedExample() })).body).toEqual({ ok: true, valid: true, errors: [] });
    const refused = await w.call('POST', '/hub/workflows', { body: { ...bad, route: { method: 'POST', path: '/bad' } } });
    expect(refused).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_workflow', details: { errors: [{ path: '$.steps[0].config.condition' }] } } },
    });
    const clash = await w.call('POST', '/hub/workflows', { body: { ...seedExample(), name: 'orders2' } });
    expect(clash).toMatchObject({ status: 409, body: { error: { code: 'route_conflict' } } });
    expect((await w.call('POST', '/hub/workflows', { body: seedExample() })).status).toBe(409);
  });

  it('updates and deletes routes without a restart', async () => {
    const spec = { name: 'echo', route: { method: 'POST', path: '/echo' }, steps: [{ id: 'm', kind: 'map', config: { set: { v: '{{input.v}}' } } }] };
    expect((await w.call('POST', '/hub/workflows', { body: spec })).status).toBe(201);
    expect(await (await invoke(w.base, '/echo', { v: 1 })).json()).toEqual({ v: 1 });
    const moved = await w.call('PUT', '/hub/workflows/echo', { body: { ...spec, version: '2', route: { method: 'POST', path: '/echo2' } } });
    expect(moved).toMatchObject({ status: 200, body: { workflow: { version: '2', route: { path: '/echo2' } } } });
    expect((await invoke(w.base, '/echo', { v: 1 })).status).toBe(404);
    expect(await (await invoke(w.base, '/echo2', { v: 2 })).json()).toEqual({ v: 2 });
    expect((await w.call('GET', '/hub/apis')).body.apis.map((a: any) => a.id).sort()).toEqual(['echo', 'orders']);
    expect(await w.call('DELETE', '/hub/workflows/echo')).toMatchObject({ status: 200, body: { ok: true, deleted: 'echo' } });
    expect((await invoke(w.base, '/echo2', { v: 2 })).status).toBe(404);
    expect((await w.call('DELETE', '/hub/workflows/echo')).status).toBe(404);
    expect((await w.call('GET', '/hub/workflows')).body.workflows.map((x: any) => x.id)).toEqual(['orders']);
  });

  it('reports a failing step with its id', async () => {
    const spec = { name: 'failing', route: { method: 'POST', path: '/failing' }, steps: [{ id: 'boom', kind: 'mock', config: { error: 'upstream down' } }] };
    await w.call('POST', '/hub/workflows', { body: spec });
    const res = await invoke(w.base, '/failing', {});
    expect(res.status).toBe(502);
    expect(await res.json()).toMatchObject({ ok: false, error: { code: 'step_failed', details: { stepId: 'boom', code: 'mock_error' } } });
    const failed = await w.call('GET', '/hub/traces?workflow=failing&status=failed');
    expect(failed.body.traces).toHaveLength(1);
    expect(failed.body.traces[0]).toMatchObject({ error: { stepId: 'boom' } });
  });

  it('searches traces by searchFields values, workflow, status and time, with paging', async () => {
    for (const c of ['zed', 'zed', 'yan']) await invoke(w.base, '/orders', { customer: c, amount: 1 });
    const zed = await w.call('GET', '/hub/traces?field.customer=zed');
    expect(zed.body.traces).toHaveLength(2);
    expect(zed.body.traces.every((t: any) => t.fields.customer === 'zed')).toBe(true);
    const page1 = await w.call('GET', '/hub/traces?workflow=orders&limit=2');
    expect(page1.body.traces).toHaveLength(2);
    const page2 = await w.call('GET', `/hub/traces?workflow=orders&limit=2&cursor=${page1.body.nextCursor}`);
    expect(page2.body.traces[0].id < page1.body.traces[1].id).toBe(true);
    expect((await w.call('GET', '/hub/traces?to=2000-01-01T00:00:00Z')).body.traces).toEqual([]);
    expect(
      (await w.call('GET', `/hub/traces?from=${encodeURIComponent(new Date(Date.now() - 60_000).toISOString())}&field.customer=yan`)).body.traces,
    ).toHaveLength(1);
  });

  it('saves regression tests from a trace and from a body, and runs them: pass and fail with a structural diff', async () => {
    const res = await invoke(w.base, '/orders', { customer: 'kim', amount: 500 });
    const fromTrace = await w.call('POST', '/hub/tests', { body: { name: 'kim big order', fromTrace: res.headers.get('x-execution-id'), ignore: ['$.at'] } });
    expect(fromTrace.status).toBe(201);
    expect(fromTrace.body.test.fixtures).toEqual({ a: { price: 10 }, b: { price: 12 } });
    const wrong = await w.call('POST', '/hub/tests', {
      body: {
        name: 'wrong',
        workflow: 'orders',
        input: { customer: 'x', amount: 1 },
        fixtures: { b: { price: 99 } },
        expected: { customer: 'x', amount: 1, tenant: 'default', price: 12 },
        ignore: ['$.at'],
      },
    });
    expect(wrong.status).toBe(201);
    const before = (await w.call('GET', '/hub/traces?workflow=orders&limit=200')).body.traces.length;
    const run = await w.call('POST', '/hub/tests/run', { body: {} });
    expect(run.status).toBe(200);
    expect(run.body.run).toMatchObject({ state: 'completed', total: 2, passed: 1, failed: 1 });
    const failed = run.body.run.results.find((r: any) => r.name === 'wrong');
    expect(failed.status).toBe('failed');
    expect(failed.diff).toEqual([{ path: '$.price', expected: 12, actual: 99, kind: 'changed' }]);
    // Isolation: running tests wrote no traces.
    expect((await w.call('GET', '/hub/traces?workflow=orders&limit=200')).body.traces.length).toBe(before);
    expect((await w.call('GET', '/hub/tests')).body.tests).toHaveLength(2);
  });

  it('plans a deploy with breaking changes and changes nothing', async () => {
    const orders = seedExample() as any;
    const target = [
      { ...orders, route: { method: 'PUT', path: '/orders' }, input: { required: ['customer'] } },
      { name: 'fresh', route: { method: 'GET', path: '/fresh' }, steps: [] },
    ];
    const plan = await w.call('POST', '/hub/deploy/plan', { body: { workflows: target } });
    expect(plan.status).toBe(200);
    const p = plan.body.plan;
    expect(p.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(p.added).toEqual([{ workflow: 'fresh', route: 'GET /fresh' }]);
    expect(p.changed).toEqual([expect.objectContaining({ workflow: 'orders', fields: expect.arrayContaining(['route', 'input']) })]);
    expect(p.removed.map((r: any) => r.workflow)).toEqual(['failing']);
    expect(p.breaking.map((b: any) => `${b.workflow}:${b.kind}`).sort()).toEqual([
      'failing:route_removed',
      'orders:method_changed',
      'orders:required_input_added',
    ]);
    expect((await w.call('POST', '/hub/deploy/plan', { body: { workflows: target } })).body.plan.hash).toBe(p.hash);
    expect((await invoke(w.base, '/orders', { customer: 'a', amount: 1 })).status).toBe(200);
    const bad = await w.call('POST', '/hub/deploy/plan', { body: { workflows: [{ name: 'x' }] } });
    expect(bad).toMatchObject({ status: 400, body: { error: { code: 'invalid_workflow' } } });
  });

  it('exports a bundle and summarises metrics', async () => {
    const exp = await w.call('POST', '/hub/deploy/export', { body: { name: 'shop', ids: ['orders'] } });
    expect(exp.status).toBe(200);
    expect(Object.keys(exp.body.bundle.files).sort()).toEqual([
      'README.md',
      'manifest.json',
      'package.json',
      'workflows/orders.json',
      'workflows/orders.test.json',
    ]);
    // The saved regression tests travel in the file format `tessera test` reads (docs/cli.md).
    const tests = JSON.parse(exp.body.bundle.files['workflows/orders.test.json']);
    expect(tests.map((t: any) => t.name).sort()).toEqual(['kim big order', 'wrong']);
    expect(tests.find((t: any) => t.name === 'wrong')).toEqual({
      name: 'wrong',
      workflow: 'orders',
      input: { customer: 'x', amount: 1 },
      fixtures: { b: { price: 99 } },
      expected: { customer: 'x', amount: 1, tenant: 'default', price: 12 },
      ignore: ['$.at'],
    });
    expect(JSON.parse(exp.body.bundle.files['package.json']).scripts.start).toBe('tessera serve --workflows workflows --port 8787');
    const m = await w.call('GET', '/hub/metrics');
    expect(m.status).toBe(200);
    expect(m.body.workflows.find((x: any) => x.id === 'orders').executions.completed).toBeGreaterThan(3);
    expect(m.body.storeBytes).toBeGreaterThan(0);
    const prom = await (await fetch(`${w.base}/metrics`)).text();
    expect(prom).toMatch(/workflow_executions_total\{workflow="orders",status="completed"\} \d+/);
    expect(prom).toMatch(/workflow_step_duration_seconds_bucket\{.*kind="mock"/);
  });

  it('enforces each hub permission: 401 without a key, 403 without the permission', async () => {
    const rows: Array<[string, string, string, unknown?]> = [
      ['GET', '/hub/apis', 'workflow:read'],
      ['GET', '/hub/workflows', 'workflow:read'],
      ['POST', '/hub/workflows', 'workflow:create', seedExample()],
      ['PUT', '/hub/workflows/orders', 'workflow:edit', seedExample()],
      ['DELETE', '/hub/workflows/nothing', 'workflow:delete'],
      ['POST', '/hub/workflows/validate', 'workflow:read', seedExample()],
      ['GET', '/hub/traces', 'telemetry:read'],
      ['GET', '/hub/tests', 'workflow:test'],
      ['POST', '/hub/tests/run', 'workflow:test', {}],
      ['POST', '/hub/deploy/plan', 'workflow:deploy', { workflows: [] }],
      ['POST', '/hub/deploy/export', 'workflow:deploy', {}],
      ['GET', '/hub/metrics', 'metrics:read'],
    ];
    const invoker = await w.keyWith('inv', ['invoker']);
    for (const [method, path, permission, body] of rows) {
      const none = await call(w.base, method, path, { body });
      expect(none.status, `${method} ${path}`).toBe(401);
      const denied = await call(w.base, method, path, { key: invoker, body });
      expect(denied.status, `${method} ${path}`).toBe(403);
      expect(denied.body.error.details.permission).toBe(permission);
      const scoped = await w.keyWith(
        `only-${permission.replace(':', '-')}-${method.toLowerCase()}-${path.split('/').length}${path.length}`,
        ['admin'],
        [permission],
      );
      const allowed = await call(w.base, method, path, { key: scoped, body });
      expect([401, 403], `${method} ${path}`).not.toContain(allowed.status);
    }
    for (const p of ['/health', '/metrics', '/openapi.json']) expect((await fetch(`${w.base}${p}`)).status).toBe(200);
  });

  it('describes workflow routes in /openapi.json with the inferred input fields', async () => {
    const doc = (await (await fetch(`${w.base}/openapi.json`)).json()) as any;
    expect(doc.openapi).toMatch(/^3\.1/);
    const op = doc.paths['/orders'].post;
    const schema = op.requestBody.content['application/json'].schema;
    expect(Object.keys(schema.properties ?? schema.anyOf?.[0]?.properties ?? {})).toEqual(expect.arrayContaining(['amount', 'customer']));
  });
});

describe('protectInvoke', () => {
  let w: WfApp;
  beforeAll(async () => {
    w = await startWorkflow({ protectInvoke: true });
    await w.call('POST', '/hub/workflows', { body: seedExample() });
  });
  afterAll(() => w.stop());

  it('requires a key with api:invoke on workflow routes', async () => {
    expect((await invoke(w.base, '/orders', { customer: 'a', amount: 1 })).status).toBe(401);
    const viewer = await w.keyWith('viewer1', ['viewer']);
    expect((await invoke(w.base, '/orders', { customer: 'a', amount: 1 }, { 'x-api-key': viewer })).status).toBe(403);
    const invoker = await w.keyWith('invoker1', ['invoker']);
    const ok = await invoke(w.base, '/orders', { customer: 'a', amount: 1 }, { 'x-api-key': invoker });
    expect(ok.status).toBe(200);
  });
});
