import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tenancyConformance } from 'tessera-runtime/testing';
import { createTestApp, repoRoot, type TestApp } from '../../helpers/app.js';
import { startProviderServer, perToken, type ModelListServer } from './provider-server.js';

// Custom models belong to the tenant that added them: another tenant neither sees, lists nor removes them.
tenancyConformance(
  'agent',
  {
    manifest: { listeners: [{ name: 'agent', port: 0, plugins: ['agent'] }], plugins: { search: {}, graph: {}, agent: {} } },
    listener: 'agent',
    dir: repoRoot,
  },
  [
    {
      name: 'custom model',
      create: async (c, label) => {
        const res = await c.call('POST', '/api/v1/models/catalog', { id: `custom/${label}`, tier: 2, pricing: { promptPer1M: 0.1, completionPer1M: 0.2 } });
        if (res.status !== 201) throw new Error(JSON.stringify(res.body));
        return res.body.model.id as string;
      },
      read: async (c, id) => {
        const res = await c.call('GET', `/api/v1/models/catalog?q=${encodeURIComponent(id)}`);
        return { status: res.body.models.some((m: { id: string }) => m.id === id) ? 200 : 404, body: res.body };
      },
      list: async (c) =>
        (await c.call('GET', '/api/v1/models/catalog')).body.models.filter((m: { custom: boolean }) => m.custom).map((m: { id: string }) => m.id),
      remove: (c, id) => c.call('DELETE', `/api/v1/models/catalog?id=${encodeURIComponent(id)}`),
    },
  ],
);

describe('agent tenancy of events, dead letters, budgets, cache, circuits and configuration', () => {
  let t: TestApp;
  let provider: ModelListServer;
  const keys: Record<string, string> = {};
  const call = async (tenant: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${t.url('agent')}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${keys[tenant]}`,
        'x-tenant': tenant,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  beforeAll(async () => {
    provider = await startProviderServer([{ id: 'acme/one', name: 'One', context_length: 1000, pricing: { prompt: perToken(1), completion: perToken(2) } }]);
    t = await createTestApp(
      {
        listeners: [{ name: 'agent', port: 0, plugins: ['rbac', 'agent'] }],
        plugins: { rbac: {}, search: {}, graph: {}, agent: { options: { allowPrivateAddresses: true, sync: { attempts: 1, backoffMs: 0 } } } },
        auth: { provider: 'rbac' },
      },
      { dir: repoRoot },
    );
    const superKey = JSON.stringify(t.logs).match(/tsk_[0-9A-Za-z]+/)![0];
    for (const tenant of ['acme', 'globex']) {
      const h = { 'x-api-key': superKey, 'x-tenant': tenant, 'content-type': 'application/json' };
      const user = await fetch(`${t.url('agent')}/hub/rbac/users`, {
        method: 'POST',
        headers: h,
        body: JSON.stringify({ name: `${tenant}-admin`, roles: ['admin'] }),
      });
      const userId = ((await user.json()) as any).user.id;
      const key = await fetch(`${t.url('agent')}/hub/rbac/keys`, { method: 'POST', headers: h, body: JSON.stringify({ name: `${tenant} key`, userId }) });
      keys[tenant] = ((await key.json()) as any).secret;
    }
  });
  afterAll(async () => {
    await t.stop();
    await provider.close();
  });

  it('refuses a request without a key (401) and an X-Tenant that is not the key’s tenant (403)', async () => {
    const none = await fetch(`${t.url('agent')}/api/v1/models/catalog`);
    expect(none.status).toBe(401);
    const other = await call('acme', 'GET', '/api/v1/models/catalog', undefined, { 'x-tenant': 'globex' });
    expect(other.status).toBe(403);
    expect(other.body.error.code).toBe('tenant_mismatch');
    // The Prometheus endpoint is public like /metrics.
    expect((await fetch(`${t.url('agent')}/metrics/prometheus`)).status).toBe(200);
  });

  it("keeps each tenant's configuration, budget, synced models, events, dead letters, circuits and cache apart", async () => {
    await call('acme', 'POST', '/api/v1/models/config', { apiKey: 'sk-acme-secret-key-000111', baseUrl: provider.baseUrl });
    await call('acme', 'POST', '/api/v1/tokens/budget', { maxOutputTokens: 111 });
    expect((await call('acme', 'POST', '/api/v1/models/sync')).status).toBe(200);
    provider.failNext = [500];
    await call('acme', 'POST', '/api/v1/models/sync');
    await call('acme', 'POST', '/api/v1/chat/completions', { model: 'acme/one', messages: [{ role: 'user', content: 'hi' }] });
    await new Promise((r) => setTimeout(r, 100));

    expect((await call('acme', 'GET', '/api/v1/models/config')).body.config.apiKey).toEqual({ configured: true, last4: '0111' });
    expect((await call('globex', 'GET', '/api/v1/models/config')).body.config.apiKey).toEqual({ configured: false });
    expect((await call('globex', 'GET', '/api/v1/tokens/budget')).body.budget.maxOutputTokens).toBe(4096);
    expect((await call('acme', 'GET', '/api/v1/models/catalog?q=acme')).body.models).toHaveLength(1);
    expect((await call('globex', 'GET', '/api/v1/models/catalog?q=acme')).body.models).toHaveLength(0);

    const acmeEvents = (await call('acme', 'GET', '/api/v1/telemetry/events?limit=1000')).body.events;
    const globexEvents = (await call('globex', 'GET', '/api/v1/telemetry/events?limit=1000')).body.events;
    expect(acmeEvents.length).toBeGreaterThan(5);
    expect(acmeEvents.every((e: { tenant: string }) => e.tenant === 'acme')).toBe(true);
    expect(globexEvents).toEqual([]);

    const dlq = (await call('acme', 'GET', '/api/v1/telemetry/dlq')).body.records;
    expect(dlq).toHaveLength(1);
    expect((await call('globex', 'GET', '/api/v1/telemetry/dlq')).body.records).toEqual([]);
    const replay = await call('globex', 'POST', `/api/v1/telemetry/dlq/${dlq[0].id}/replay`);
    expect(replay.status).toBe(404);

    expect((await call('acme', 'GET', '/api/v1/telemetry/circuit-breakers')).body.circuits.length).toBeGreaterThan(0);
    expect((await call('globex', 'GET', '/api/v1/telemetry/circuit-breakers')).body.circuits).toEqual([]);
    expect((await call('acme', 'GET', '/api/v1/cache/stats')).body.stats).toMatchObject({ entries: 1, misses: 1 });
    expect((await call('globex', 'GET', '/api/v1/cache/stats')).body.stats).toMatchObject({ entries: 0, misses: 0 });
    expect((await call('globex', 'POST', '/api/v1/cache/clear')).body.cleared).toBe(0);
    expect((await call('acme', 'GET', '/api/v1/cache/stats')).body.stats.entries).toBe(1);

    // The key went to the provider as a bearer token, and nowhere a client can read.
    expect(provider.requests.some((r) => r.authorization === 'Bearer sk-acme-secret-key-000111')).toBe(true);
    expect(JSON.stringify([acmeEvents, dlq, t.logs])).not.toContain('sk-acme-secret-key-000111');
  });
});
