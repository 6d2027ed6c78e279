import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProviderServer, perToken, type ModelListServer } from './provider-server.js';
import { startAgent, type AgentApp } from './support.js';

const API_KEY = 'sk-or-v1-test-0123456789abcdefSECRETwxyz';

function readTree(dir: string): Buffer[] {
  const out: Buffer[] = [];
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) out.push(...readTree(p));
    else out.push(readFileSync(p));
  }
  return out;
}

describe('agent price sync and provider configuration', () => {
  let t: AgentApp;
  let provider: ModelListServer;
  beforeAll(async () => {
    provider = await startProviderServer([
      { id: 'acme/tiny', name: 'Acme Tiny', context_length: 8192, pricing: { prompt: perToken(0.0375), completion: perToken(0.1) } },
      { id: 'acme/mid', name: 'Acme Mid', context_length: 65536, pricing: { prompt: perToken(0.8), completion: perToken(3.2) } },
      { id: 'acme/big', name: 'Acme Big', context_length: 200000, pricing: { prompt: perToken(18), completion: perToken(72) } },
      { id: 'openrouter/auto', name: 'Auto Router', context_length: 2000000, pricing: { prompt: '-1', completion: '-1' } },
    ]);
    t = await startAgent({ allowPrivateAddresses: true, sync: { attempts: 2, backoffMs: 10 }, breaker: { consecutiveFailures: 3, cooldownMs: 60_000 } });
  });
  afterAll(async () => {
    await t.stop();
    await provider.close();
  });

  it('stores the key write-only: reads show only configured and last4', async () => {
    const set = await t.call('POST', '/api/v1/models/config', { apiKey: API_KEY, baseUrl: provider.baseUrl, syncInterval: 'daily' });
    expect(set.status).toBe(200);
    expect(set.body.config).toEqual({
      baseUrl: provider.baseUrl,
      baseUrlSource: 'tenant',
      apiKey: { configured: true, last4: 'wxyz' },
      syncInterval: 'daily',
      tierOverrides: {},
      updatedAt: expect.any(String),
      nextSyncAt: expect.any(String),
    });
    const read = await t.call('GET', '/api/v1/models/config');
    expect(read.body.config.apiKey).toEqual({ configured: true, last4: 'wxyz' });
    expect(JSON.stringify(read.body)).not.toContain(API_KEY);
    // The schedule runs the sync daily from now.
    const next = Date.parse(read.body.config.nextSyncAt);
    expect(next - Date.now()).toBeGreaterThan(23 * 3600_000);
    expect(next - Date.now()).toBeLessThanOrEqual(24 * 3600_000);
  });

  it('refuses a sync interval outside hourly, 6h, daily, weekly', async () => {
    const bad = await t.call('POST', '/api/v1/models/config', { syncInterval: 'monthly' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues[0].path).toBe('body.syncInterval');
  });

  it('adds the listed models with tiers from their prices, sends the key as a bearer token, and skips priceless routers', async () => {
    const res = await t.call('POST', '/api/v1/models/sync');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      ok: true,
      added: 3,
      updated: 0,
      removed: 0,
      unchanged: 0,
      skipped: 1,
      changes: { added: ['acme/tiny', 'acme/mid', 'acme/big'], updated: [], removed: [] },
      source: new URL(provider.baseUrl).origin,
    });
    expect(provider.requests.at(-1)).toEqual({ path: '/api/v1/models', authorization: `Bearer ${API_KEY}` });
    const models = (await t.call('GET', '/api/v1/models/catalog?q=acme')).body.models;
    expect(models.map((m: { id: string; tier: number }) => [m.id, m.tier])).toEqual([
      ['acme/tiny', 1],
      ['acme/mid', 4],
      ['acme/big', 9],
    ]);
    expect(models[1]).toMatchObject({
      source: 'sync',
      contextLength: 65536,
      pricing: { promptPer1M: 0.8, completionPer1M: 3.2 },
      category: 'Mid-tier generalist',
    });
  });

  it('reports updated, removed and unchanged models on the next sync, and honours a per-model tier override', async () => {
    provider.models = [
      { id: 'acme/tiny', name: 'Acme Tiny', context_length: 8192, pricing: { prompt: perToken(0.0375), completion: perToken(0.1) } },
      { id: 'acme/mid', name: 'Acme Mid', context_length: 65536, pricing: { prompt: perToken(2.5), completion: perToken(10) } },
      { id: 'acme/new', name: 'Acme New', context_length: 4096, pricing: { prompt: '0', completion: '0' } },
    ];
    await t.call('POST', '/api/v1/models/config', { tierOverrides: { 'acme/new': 5 } });
    const res = await t.call('POST', '/api/v1/models/sync');
    expect(res.body).toMatchObject({
      added: 1,
      updated: 1,
      removed: 1,
      unchanged: 1,
      changes: { added: ['acme/new'], updated: ['acme/mid'], removed: ['acme/big'] },
    });
    const models = (await t.call('GET', '/api/v1/models/catalog?q=acme')).body.models;
    expect(models.map((m: { id: string; tier: number }) => [m.id, m.tier])).toEqual([
      ['acme/tiny', 1],
      ['acme/new', 5],
      ['acme/mid', 6],
    ]);
  });

  it('records a failing provider, fails the sync with 502 after its attempts, and opens the sync circuit', async () => {
    provider.failNext = [500, 'garbage'];
    const failed = await t.call('POST', '/api/v1/models/sync');
    expect(failed.status).toBe(502);
    expect(failed.body.error.code).toBe('sync_failed');
    expect(failed.body.error.message).toContain('not JSON');
    const events = (await t.call('GET', '/api/v1/telemetry/events?kind=models.sync_failed')).body.events;
    expect(events.map((e: { data: { reason: string } }) => e.data.reason)).toEqual([
      expect.stringContaining('answered 500'),
      'GET /models answered a body that is not JSON',
    ]);
    provider.failNext = [503];
    expect((await t.call('POST', '/api/v1/models/sync')).status).toBe(502);
    const circuits = (await t.call('GET', '/api/v1/telemetry/circuit-breakers')).body;
    const sync = circuits.circuits.find((c: { name: string }) => c.name.startsWith('sync:'));
    expect(sync).toMatchObject({ kind: 'sync', state: 'open', consecutiveFailures: 3, openedAt: expect.any(String), nextProbeAt: expect.any(String) });
    // Open: the provider is not called at all.
    const before = provider.requests.length;
    const refused = await t.call('POST', '/api/v1/models/sync');
    expect(refused.status).toBe(502);
    expect(refused.body.error.message).toContain('is open until');
    expect(provider.requests.length).toBe(before);
  });

  it('never writes the key to logs, responses, events or the store files', async () => {
    const events = await t.call('GET', '/api/v1/telemetry/events?limit=1000');
    const dlq = await t.call('GET', '/api/v1/telemetry/dlq');
    expect(JSON.stringify(events.body)).not.toContain(API_KEY);
    expect(JSON.stringify(dlq.body)).not.toContain(API_KEY);
    expect(JSON.stringify(t.logs)).not.toContain(API_KEY);
    for (const file of readTree(t.dataDir)) expect(file.includes(API_KEY)).toBe(false);
  });

  it('keeps the encryption key in a 0600 file outside the data directory', () => {
    const keyFile = path.join(path.dirname(t.dataDir), `${path.basename(t.dataDir)}-agent-secrets.key`);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(keyFile, 'utf8').trim()).toMatch(/^[A-Za-z0-9+/]{43}=$/);
  });

  it('refuses a tenant baseUrl on a private address unless allowPrivateAddresses is on', async () => {
    const strict = await startAgent({});
    try {
      const res = await strict.call('POST', '/api/v1/models/config', { baseUrl: provider.baseUrl });
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ code: 'egress_not_allowed', details: { reason: 'private_address' } });
    } finally {
      await strict.stop();
    }
  });
});
