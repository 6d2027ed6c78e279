import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startRbac, type RbacApp } from './helpers.js';

describe('audit log', () => {
  let r: RbacApp;
  let base: string;
  let admin: { userId: string; userName: string; keyId: string };
  let viewer: { user: any; key: any; secret: string };
  let ci: any;
  beforeAll(async () => {
    r = await startRbac();
    base = r.t.url('hub');
    const me = (await r.call('GET', '/hub/me')).body;
    admin = { userId: me.user.id, userName: 'admin', keyId: me.key.id };
    viewer = await r.userWithKey('vince', ['viewer']);
    await r.call('PUT', '/hub/rbac/users', { body: { name: 'vince', roles: ['viewer', 'invoker'] } });
    await r.call('POST', '/hub/rbac/roles', { body: { name: 'watcher', permissions: ['telemetry:read'] } });
    ci = (await r.call('POST', '/hub/rbac/keys', { body: { name: 'ci', scopes: ['workflow:read'] } })).body;
    await r.call('DELETE', `/hub/rbac/keys/${ci.key.id}`);
    await call(base, 'GET', '/hub/rbac/users', { key: viewer.secret });
    await call(base, 'GET', '/hub/me', { key: viewer.secret, headers: { 'x-tenant': 'elsewhere' } });
    await call(base, 'GET', '/hub/me', { key: `${ci.secret.slice(0, 20)}${'Z'.repeat(43)}` });
  });
  afterAll(() => r.stop());

  it('records bootstrap, user, role and key changes and denied requests, newest first', async () => {
    const answer = await r.call('GET', '/hub/rbac/audit');
    expect(answer.status).toBe(200);
    expect(answer.body.nextCursor).toBeNull();
    const entries = answer.body.entries;
    expect(entries.map((e: any) => e.action)).toEqual([
      'auth.failed',
      'auth.denied',
      'auth.denied',
      'key.revoked',
      'key.created',
      'role.created',
      'user.roles_changed',
      'key.created',
      'user.created',
      'bootstrap',
    ]);
    const ids = entries.map((e: any) => Number(e.id));
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    const viewerActor = { userId: viewer.user.id, userName: 'vince', keyId: viewer.key.id };
    const common = {
      id: expect.any(String),
      at: expect.any(String),
      tenant: 'default',
      ip: expect.stringMatching(/127\.0\.0\.1$/),
      requestId: expect.any(String),
    };
    expect(entries[0]).toEqual({
      ...common,
      action: 'auth.failed',
      actor: null,
      target: { type: 'key', id: ci.key.id },
      details: { method: 'GET', path: '/hub/me', route: '/hub/me', permission: 'authenticated', count: 1 },
    });
    expect(entries[1]).toEqual({
      ...common,
      action: 'auth.denied',
      actor: viewerActor,
      target: null,
      details: {
        method: 'GET',
        path: '/hub/me',
        route: '/hub/me',
        permission: 'authenticated',
        reason: 'tenant_mismatch',
        requested: 'elsewhere',
        tenant: 'default',
        count: 1,
      },
    });
    expect(entries[2]).toEqual({
      ...common,
      action: 'auth.denied',
      actor: viewerActor,
      target: null,
      details: { method: 'GET', path: '/hub/rbac/users', route: '/hub/rbac/users', permission: 'rbac:manage', reason: 'permission_denied', count: 1 },
    });
    expect(entries[3]).toEqual({
      ...common,
      action: 'key.revoked',
      actor: admin,
      target: { type: 'key', id: ci.key.id },
      details: { name: 'ci', userId: admin.userId },
    });
    expect(entries[4]).toEqual({
      ...common,
      action: 'key.created',
      actor: admin,
      target: { type: 'key', id: ci.key.id },
      details: { name: 'ci', userId: admin.userId, scopes: ['workflow:read'], indexes: ['*'], expiresAt: null },
    });
    expect(entries[6]).toEqual({
      ...common,
      action: 'user.roles_changed',
      actor: admin,
      target: { type: 'user', id: viewer.user.id },
      details: { changed: ['roles'], before: ['viewer'], after: ['viewer', 'invoker'] },
    });
    expect(entries[9]).toMatchObject({ action: 'bootstrap', actor: null, ip: null, requestId: null, target: { type: 'key', id: admin.keyId } });
  });

  it('pages with limit and cursor without gaps or repeats, and filters by action', async () => {
    const all = (await r.call('GET', '/hub/rbac/audit')).body.entries.map((e: any) => e.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await r.call('GET', `/hub/rbac/audit?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.body.entries.length).toBeLessThanOrEqual(3);
      seen.push(...page.body.entries.map((e: any) => e.id));
      cursor = page.body.nextCursor;
    } while (cursor !== null);
    expect(seen).toEqual(all);
    const created = await r.call('GET', '/hub/rbac/audit?action=key.created');
    expect(created.body.entries.map((e: any) => e.action)).toEqual(['key.created', 'key.created']);
    expect((await r.call('GET', '/hub/rbac/audit?action=nonsense')).body.error.code).toBe('validation_failed');
    expect((await r.call('GET', '/hub/rbac/audit?cursor=abc')).body.error.code).toBe('invalid_cursor');
  });

  it('is readable with rbac:manage only, and the system partition with tenants:manage only', async () => {
    expect((await call(base, 'GET', '/hub/rbac/audit', { key: viewer.secret })).body.error).toEqual({
      code: 'permission_denied',
      message: 'Missing permission rbac:manage.',
      details: { permission: 'rbac:manage' },
    });
    const tenantAdmin = await r.userWithKey('tad', ['admin']);
    expect(await call(base, 'GET', '/hub/rbac/audit?system=true', { key: tenantAdmin.secret })).toMatchObject({
      status: 403,
      body: { error: { code: 'permission_denied', details: { permission: 'tenants:manage' } } },
    });
    expect((await r.call('GET', '/hub/rbac/audit?system=true')).body).toEqual({ ok: true, entries: [], nextCursor: null });
  });
});
