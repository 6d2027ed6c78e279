import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, json, type TestApp } from '../helpers/app.js';

describe('route permissions enforced through the auth provider', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      listeners: [
        { name: 'guarded', port: 0, plugins: ['gatekeeper'] },
        { name: 'local', port: 0, plugins: ['gatekeeper'], auth: false },
      ],
      plugins: { gatekeeper: { module: './plugins/gatekeeper/index.js' } },
      auth: { provider: 'gatekeeper' },
    });
  });
  afterAll(() => t.stop());

  it('401 missing_api_key without a credential', async () => {
    const res = await fetch(`${t.url('guarded')}/things`);
    expect(res.status).toBe(401);
    expect((await json(res)).error.code).toBe('missing_api_key');
  });

  it('401 invalid_api_key for an unknown key', async () => {
    const res = await fetch(`${t.url('guarded')}/things`, { headers: { 'x-api-key': 'nope' } });
    expect(res.status).toBe(401);
    expect((await json(res)).error.code).toBe('invalid_api_key');
  });

  it('403 permission_denied naming the missing permission', async () => {
    const res = await fetch(`${t.url('guarded')}/things`, { method: 'POST', headers: { 'x-api-key': 'key-reader' } });
    expect(res.status).toBe(403);
    expect((await json(res)).error).toEqual({
      code: 'permission_denied',
      message: 'Missing permission things:write.',
      details: { permission: 'things:write' },
    });
  });

  it('passes the principal to the handler, from x-api-key or a bearer token', async () => {
    expect(await json(await fetch(`${t.url('guarded')}/things`, { headers: { 'x-api-key': 'key-reader' } }))).toEqual({ ok: true, caller: 'reader' });
    expect(await json(await fetch(`${t.url('guarded')}/me`, { headers: { authorization: 'Bearer key-writer' } }))).toEqual({
      ok: true,
      id: 'writer',
      tenant: 't1',
    });
  });

  it('keeps public routes, /health, /metrics and /openapi.json open', async () => {
    expect(await json(await fetch(`${t.url('guarded')}/open`))).toEqual({ ok: true, principal: null });
    for (const path of ['/health', '/metrics', '/openapi.json']) expect((await fetch(`${t.url('guarded')}${path}`)).status).toBe(200);
  });

  it('skips enforcement on a listener that turns auth off', async () => {
    expect((await fetch(`${t.url('local')}/things`, { method: 'POST' })).status).toBe(200);
  });

  it('marks protected operations in OpenAPI', async () => {
    const doc = await json(await fetch(`${t.url('guarded')}/openapi.json`));
    expect(doc.paths['/things'].get.security).toEqual([{ apiKey: [] }, { bearer: [] }]);
    expect(doc.paths['/things'].get['x-permission']).toBe('things:read');
    expect(doc.paths['/open'].get.security).toBeUndefined();
  });
});

describe("route option authenticate: 'always'", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      listeners: [{ name: 'local', port: 0, plugins: ['gatekeeper'], auth: false }],
      plugins: { gatekeeper: { module: './plugins/gatekeeper/index.js' } },
    });
  });
  afterAll(() => t.stop());

  it('authenticates and checks the permission on a listener with auth off', async () => {
    const none = await fetch(`${t.url('local')}/vault`, { method: 'POST' });
    expect(none.status).toBe(401);
    expect((await json(none)).error.code).toBe('missing_api_key');
    const reader = await fetch(`${t.url('local')}/vault`, { method: 'POST', headers: { 'x-api-key': 'key-reader' } });
    expect(reader.status).toBe(403);
    expect((await json(reader)).error).toMatchObject({ code: 'permission_denied', details: { permission: 'things:write' } });
    expect(await json(await fetch(`${t.url('local')}/vault`, { method: 'POST', headers: { 'x-api-key': 'key-writer' } }))).toEqual({
      ok: true,
      caller: 'writer',
    });
  });

  it("leaves the listener's other routes open, and marks only this one as secured in OpenAPI", async () => {
    expect((await fetch(`${t.url('local')}/things`, { method: 'POST' })).status).toBe(200);
    const doc = await json(await fetch(`${t.url('local')}/openapi.json`));
    expect(doc.paths['/vault'].post.security).toEqual([{ apiKey: [] }, { bearer: [] }]);
    expect(doc.paths['/things'].post.security).toBeUndefined();
  });

  it('refuses to load such a route when no plugin registers an authenticator', async () => {
    await expect(
      createTestApp({
        listeners: [{ name: 'local', port: 0, plugins: ['always-open'] }],
        plugins: { 'always-open': { module: './plugins/always-open/index.js' } },
      }),
    ).rejects.toMatchObject({ code: 'auth_provider_missing', plugin: 'always-open', details: { route: 'GET /secret' } });
  });
});
