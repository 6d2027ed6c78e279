import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, hubListener, startRbac, type RbacApp } from './helpers.js';

const missing = { ok: false, error: { code: 'missing_api_key', message: 'Send an API key in the x-api-key header or as Authorization: Bearer <key>.' } };

describe('enforcement on listeners', () => {
  let r: RbacApp;
  beforeAll(async () => {
    r = await startRbac({ manifest: { listeners: [hubListener, { name: 'local', port: 0, plugins: ['rbac'], auth: false }] } });
  });
  afterAll(() => r.stop());

  it('keeps /health, /metrics and /openapi.json public (seed 001, rule 2)', async () => {
    for (const path of ['/health', '/metrics', '/openapi.json'])
      expect({ path, status: (await fetch(`${r.t.url('hub')}${path}`)).status }).toEqual({ path, status: 200 });
  });

  it('answers 401 missing_api_key without a key, or with an Authorization header that is not Bearer', async () => {
    expect(await call(r.t.url('hub'), 'GET', '/hub/me')).toMatchObject({ status: 401, body: missing });
    expect(await call(r.t.url('hub'), 'GET', '/hub/me', { headers: { authorization: 'Basic YTpi' } })).toMatchObject({ status: 401, body: missing });
  });

  it('protects its own routes even on a listener with auth off', async () => {
    expect(await call(r.t.url('local'), 'GET', '/hub/rbac/users')).toMatchObject({ status: 401, body: missing });
    const viewer = await r.userWithKey('vi', ['viewer']);
    expect((await call(r.t.url('local'), 'GET', '/hub/rbac/users', { key: viewer.secret })).body.error.code).toBe('permission_denied');
    expect((await call(r.t.url('local'), 'GET', '/hub/me', { key: r.adminKey })).status).toBe(200);
  });

  it('describes its routes in OpenAPI with their permissions and security', async () => {
    const doc: any = await (await fetch(`${r.t.url('hub')}/openapi.json`)).json();
    expect(
      Object.keys(doc.paths)
        .filter((p) => p.startsWith('/hub'))
        .sort(),
    ).toEqual([
      '/hub/me',
      '/hub/rbac/audit',
      '/hub/rbac/keys',
      '/hub/rbac/keys/{id}',
      '/hub/rbac/permissions',
      '/hub/rbac/roles',
      '/hub/rbac/users',
      '/hub/session',
    ]);
    expect(doc.paths['/hub/session'].post['x-permission']).toBe('public');
    expect(doc.paths['/hub/rbac/users'].post['x-permission']).toBe('rbac:manage');
    expect(doc.paths['/hub/rbac/users'].put['x-permission']).toBe('rbac:manage');
    expect(doc.paths['/hub/me'].get['x-permission']).toBe('authenticated');
    expect(doc.paths['/hub/rbac/keys'].post.security).toEqual([{ apiKey: [] }, { bearer: [] }]);
  });

  it('counts key checks by outcome in /metrics', async () => {
    const text = await (await fetch(`${r.t.url('hub')}/metrics`)).text();
    expect(text).toMatch(/^tessera_rbac_auth_total\{outcome="ok"\} [1-9]\d*$/m);
    expect(text).toMatch(/^tessera_rbac_auth_total\{outcome="missing"\} [1-9]\d*$/m);
  });
});

describe('without auth.provider in the manifest', () => {
  let r: RbacApp;
  beforeAll(async () => {
    r = await startRbac({ manifest: { auth: undefined } });
  });
  afterAll(() => r.stop());

  it('still requires a key for user and key management', async () => {
    expect(await call(r.t.url('hub'), 'POST', '/hub/rbac/users', { body: { name: 'x' } })).toMatchObject({ status: 401, body: missing });
    expect((await r.call('POST', '/hub/rbac/users', { body: { name: 'x' } })).status).toBe(201);
  });
});
