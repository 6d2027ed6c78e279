import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startRbac, type RbacApp } from './helpers.js';

describe('tenants', () => {
  let r: RbacApp;
  let base: string;
  let acme: { user: any; key: any; secret: string };
  let globex: { user: any; key: any; secret: string };
  let defaultViewer: { user: any; key: any; secret: string };
  beforeAll(async () => {
    r = await startRbac();
    base = r.t.url('hub');
    acme = await r.userWithKey('boss', ['admin'], { tenant: 'acme' });
    globex = await r.userWithKey('boss', ['admin'], { tenant: 'globex' });
    defaultViewer = await r.userWithKey('dee', ['viewer']);
    // Each tenant gets data of its own, some with the same names.
    for (const [secret, tenant] of [
      [acme.secret, 'acme'],
      [globex.secret, 'globex'],
    ] as const) {
      await call(base, 'POST', '/hub/rbac/users', { key: secret, body: { name: `${tenant}-dev`, roles: ['developer'] } });
      await call(base, 'POST', '/hub/rbac/roles', { key: secret, body: { name: 'releaser', description: tenant, permissions: ['workflow:deploy'] } });
      await call(base, 'POST', '/hub/rbac/keys', { key: secret, body: { name: `${tenant} ci`, scopes: ['workflow:read'] } });
    }
  });
  afterAll(() => r.stop());

  it('puts users created with X-Tenant by a superadmin, and their keys, in that tenant', () => {
    expect(acme.user.tenant).toBe('acme');
    expect(acme.key.tenant).toBe('acme');
    expect(globex.user.name).toBe(acme.user.name);
  });

  it("lists only the caller's tenant on every list endpoint", async () => {
    const users = await call(base, 'GET', '/hub/rbac/users', { key: acme.secret });
    expect(users.body.users.map((u: any) => [u.tenant, u.name])).toEqual([
      ['acme', 'boss'],
      ['acme', 'acme-dev'],
    ]);
    const keys = await call(base, 'GET', '/hub/rbac/keys', { key: acme.secret });
    expect(keys.body.keys.map((k: any) => [k.tenant, k.name])).toEqual([
      ['acme', 'boss key'],
      ['acme', 'acme ci'],
    ]);
    const roles = await call(base, 'GET', '/hub/rbac/roles', { key: acme.secret });
    expect(roles.body.roles.filter((x: any) => !x.builtIn)).toEqual([
      { name: 'releaser', description: 'acme', permissions: ['workflow:deploy'], builtIn: false },
    ]);
    const audit = await call(base, 'GET', '/hub/rbac/audit', { key: acme.secret });
    expect(audit.body.entries.length).toBeGreaterThan(0);
    expect(new Set(audit.body.entries.map((e: any) => e.tenant))).toEqual(new Set(['acme']));
    const defaultUsers = await r.call('GET', '/hub/rbac/users');
    expect(defaultUsers.body.users.map((u: any) => u.name)).toEqual(['admin', 'dee']);
  });

  it("hides another tenant's users and keys on reads and writes by id (404, as if absent)", async () => {
    const defaultKeyId = defaultViewer.key.id;
    expect(await call(base, 'DELETE', `/hub/rbac/keys/${defaultKeyId}`, { key: acme.secret })).toMatchObject({
      status: 404,
      body: { error: { code: 'key_not_found' } },
    });
    expect((await call(base, 'GET', '/hub/me', { key: defaultViewer.secret })).status).toBe(200);
    expect(await call(base, 'PUT', '/hub/rbac/users', { key: acme.secret, body: { name: 'dee', disabled: true } })).toMatchObject({
      status: 404,
      body: { error: { code: 'user_not_found' } },
    });
    expect(await call(base, 'PUT', '/hub/rbac/users', { key: acme.secret, body: { id: globex.user.id, disabled: true } })).toMatchObject({
      status: 404,
      body: { error: { code: 'user_not_found' } },
    });
    expect(await call(base, 'POST', '/hub/rbac/keys', { key: acme.secret, body: { name: 'steal', userId: defaultViewer.user.id } })).toMatchObject({
      status: 404,
      body: { error: { code: 'user_not_found' } },
    });
    // A tenant's custom role is not another's: globex's "releaser" cannot be assigned by name in default.
    expect((await r.call('POST', '/hub/rbac/users', { body: { name: 'rel', roles: ['releaser'] } })).body.error.code).toBe('unknown_role');
  });

  it('answers 403 tenant_mismatch when X-Tenant or x-tenant-id names another tenant', async () => {
    const mismatch = {
      ok: false,
      error: {
        code: 'tenant_mismatch',
        message: 'This key belongs to tenant "acme" and cannot act in tenant "globex".',
        details: { requested: 'globex', tenant: 'acme' },
      },
    };
    expect(await call(base, 'GET', '/hub/rbac/users', { key: acme.secret, headers: { 'x-tenant': 'globex' } })).toMatchObject({ status: 403, body: mismatch });
    expect(await call(base, 'GET', '/hub/me', { key: acme.secret, headers: { 'X-Tenant-Id': 'globex' } })).toMatchObject({ status: 403, body: mismatch });
    expect(await call(base, 'GET', '/hub/me', { key: acme.secret, headers: { 'x-tenant': 'acme' } })).toMatchObject({ status: 200, body: { tenant: 'acme' } });
    expect(await call(base, 'GET', '/hub/me', { key: acme.secret, headers: { 'x-tenant': 'acme', 'x-tenant-id': 'globex' } })).toMatchObject({
      status: 403,
      body: {
        ok: false,
        error: {
          code: 'tenant_mismatch',
          message: 'X-Tenant and x-tenant-id name different tenants ("acme", "globex").',
          details: { requested: ['acme', 'globex'] },
        },
      },
    });
  });

  it('lets a tenants:manage key act in another tenant with X-Tenant, and only a valid tenant id', async () => {
    const me = await r.call('GET', '/hub/me', { headers: { 'x-tenant': 'acme' } });
    expect(me.body).toMatchObject({ tenant: 'acme', homeTenant: 'default', user: { name: 'admin', roles: ['superadmin'] } });
    const users = await r.call('GET', '/hub/rbac/users', { headers: { 'x-tenant': 'globex' } });
    expect(users.body.users.map((u: any) => u.name)).toEqual(['boss', 'globex-dev']);
    expect(await r.call('GET', '/hub/me', { headers: { 'x-tenant': 'Not A Tenant' } })).toMatchObject({
      status: 400,
      body: {
        ok: false,
        error: { code: 'invalid_tenant', message: '"Not A Tenant" is not a tenant id: use 1-63 of a-z, 0-9, "_" and "-", starting with a letter or digit.' },
      },
    });
  });
});
