import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startRbac, type RbacApp } from './helpers.js';

describe('users and roles', () => {
  let r: RbacApp;
  let base: string;
  let adminUserId: string;
  beforeAll(async () => {
    r = await startRbac();
    base = r.t.url('hub');
    adminUserId = (await r.call('GET', '/hub/me')).body.user.id;
  });
  afterAll(() => r.stop());

  it("creates a user with roles (viewer by default) and lists the tenant's users oldest first", async () => {
    const created = await r.call('POST', '/hub/rbac/users', {
      body: { name: 'grace', displayName: 'Grace Hopper', email: 'grace@example.com', roles: ['developer', 'operator'] },
    });
    expect(created).toMatchObject({ status: 201 });
    expect(created.body).toEqual({
      ok: true,
      user: {
        id: expect.stringMatching(/^[0-9a-z]{9}[0-9A-Za-z]{7}$/),
        tenant: 'default',
        name: 'grace',
        displayName: 'Grace Hopper',
        email: 'grace@example.com',
        roles: ['developer', 'operator'],
        disabled: false,
        createdAt: expect.any(String),
        updatedAt: created.body.user.createdAt,
        createdBy: adminUserId,
        hasPassword: false,
      },
    });
    const plain = await r.call('POST', '/hub/rbac/users', { body: { name: 'linus' } });
    expect(plain.body.user.roles).toEqual(['viewer']);
    const list = await r.call('GET', '/hub/rbac/users');
    expect(list.body.users.map((u: { name: string }) => u.name)).toEqual(['admin', 'grace', 'linus']);
    expect(list.body.users[1]).toEqual(created.body.user);
    expect(list.body.nextCursor).toBeNull();
    const page = await r.call('GET', '/hub/rbac/users?limit=2');
    expect(page.body.users.map((u: { name: string }) => u.name)).toEqual(['admin', 'grace']);
    expect((await r.call('GET', `/hub/rbac/users?limit=2&cursor=${page.body.nextCursor}`)).body).toEqual({
      ok: true,
      users: [plain.body.user],
      nextCursor: null,
    });
  });

  it('answers 409 user_exists for a taken name and 400 unknown_role for a role that does not exist', async () => {
    await r.call('POST', '/hub/rbac/users', { body: { name: 'ken' } });
    expect(await r.call('POST', '/hub/rbac/users', { body: { name: 'ken' } })).toMatchObject({
      status: 409,
      body: { ok: false, error: { code: 'user_exists', message: 'A user named "ken" already exists in this tenant.' } },
    });
    expect(await r.call('POST', '/hub/rbac/users', { body: { name: 'x', roles: ['wizard'] } })).toMatchObject({
      status: 400,
      body: { ok: false, error: { code: 'unknown_role', message: 'Unknown role: wizard.', details: { roles: ['wizard'] } } },
    });
    expect((await r.call('POST', '/hub/rbac/users', { body: { name: 'x', colour: 'blue' } })).body.error.code).toBe('validation_failed');
  });

  it("changes a user's roles with PUT (by name or id) and the user's keys follow at once", async () => {
    const dev = await r.userWithKey('dennis', ['developer']);
    expect((await call(base, 'GET', '/hub/me', { key: dev.secret })).body.permissions).toContain('workflow:create');
    const updated = await r.call('PUT', '/hub/rbac/users', { body: { name: 'dennis', roles: ['viewer'] } });
    expect(updated.body).toEqual({ ok: true, user: { ...dev.user, roles: ['viewer'], updatedAt: expect.any(String) } });
    // The key keeps its scopes, but only what the user's roles still grant counts.
    const me = await call(base, 'GET', '/hub/me', { key: dev.secret });
    expect(me.body.permissions).toEqual(['search:read', 'workflow:read']);
    expect(me.body.key.scopes).toContain('workflow:create');
    await r.call('PUT', '/hub/rbac/users', { body: { id: dev.user.id, roles: ['developer'] } });
    expect((await call(base, 'GET', '/hub/me', { key: dev.secret })).body.permissions).toContain('workflow:create');
    expect(await r.call('PUT', '/hub/rbac/users', { body: { name: 'nobody', roles: [] } })).toMatchObject({
      status: 404,
      body: { error: { code: 'user_not_found', message: 'No user "nobody" in this tenant.' } },
    });
    expect((await r.call('PUT', '/hub/rbac/users', { body: { roles: [] } })).body.error.code).toBe('validation_failed');
  });

  it('refuses every key of a disabled user with 401 invalid_api_key until it is enabled again', async () => {
    const op = await r.userWithKey('olga', ['operator']);
    await r.call('PUT', '/hub/rbac/users', { body: { name: 'olga', disabled: true } });
    expect(await call(base, 'GET', '/hub/me', { key: op.secret })).toMatchObject({
      status: 401,
      body: { ok: false, error: { code: 'invalid_api_key', message: 'The API key is not valid.' } },
    });
    await r.call('PUT', '/hub/rbac/users', { body: { name: 'olga', disabled: false } });
    expect((await call(base, 'GET', '/hub/me', { key: op.secret })).status).toBe(200);
  });

  it('prevents privilege escalation: nobody grants a role, or edits a user, beyond their own permissions', async () => {
    const admin = await r.userWithKey('tenant-admin', ['admin']);
    const asAdmin = (method: string, path: string, body: unknown) => call(base, method, path, { key: admin.secret, body });
    expect(await asAdmin('POST', '/hub/rbac/users', { name: 'root2', roles: ['superadmin'] })).toMatchObject({
      status: 403,
      body: {
        ok: false,
        error: {
          code: 'grant_exceeds_permissions',
          message: 'Cannot grant permissions you do not hold: tenants:manage.',
          details: { notHeld: ['tenants:manage'], whose: 'caller' },
        },
      },
    });
    expect(await asAdmin('PUT', '/hub/rbac/users', { name: 'admin', disabled: true })).toMatchObject({
      status: 403,
      body: {
        error: {
          code: 'grant_exceeds_permissions',
          message: 'Cannot grant permissions the user holds and you do not: tenants:manage.',
          details: { notHeld: ['tenants:manage'], whose: 'target' },
        },
      },
    });
    expect((await asAdmin('POST', '/hub/rbac/roles', { name: 'sneaky', permissions: ['tenants:manage'] })).body.error.details).toEqual({
      notHeld: ['tenants:manage'],
      whose: 'caller',
    });
    expect((await asAdmin('POST', '/hub/rbac/users', { name: 'helper', roles: ['admin'] })).status).toBe(201);
  });

  it("lists built-in roles then the tenant's custom roles, and refuses duplicate or unknown-permission roles", async () => {
    const created = await r.call('POST', '/hub/rbac/roles', {
      body: { name: 'auditor', description: 'reads traces', permissions: ['telemetry:read', 'workflow:read', 'telemetry:read'] },
    });
    expect(created.body).toEqual({
      ok: true,
      role: { name: 'auditor', description: 'reads traces', permissions: ['workflow:read', 'telemetry:read'], builtIn: false },
    });
    const roles = (await r.call('GET', '/hub/rbac/roles')).body.roles;
    expect(roles.map((x: { name: string }) => x.name)).toEqual(['superadmin', 'admin', 'developer', 'operator', 'viewer', 'invoker', 'auditor']);
    expect(roles.find((x: { name: string }) => x.name === 'invoker')).toEqual({
      name: 'invoker',
      description: 'Calls workflow routes, nothing else.',
      permissions: ['api:invoke'],
      builtIn: true,
    });
    expect(await r.call('POST', '/hub/rbac/roles', { body: { name: 'auditor', permissions: [] } })).toMatchObject({
      status: 409,
      body: { error: { code: 'role_exists', message: 'A role named "auditor" already exists.' } },
    });
    expect((await r.call('POST', '/hub/rbac/roles', { body: { name: 'viewer', permissions: [] } })).body.error.code).toBe('role_exists');
    expect(await r.call('POST', '/hub/rbac/roles', { body: { name: 'odd', permissions: ['time:travel'] } })).toMatchObject({
      status: 400,
      body: { error: { code: 'unknown_permission', details: { permissions: ['time:travel'] } } },
    });
  });
});
