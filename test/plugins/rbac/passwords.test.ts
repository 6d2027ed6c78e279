import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startRbac, type RbacApp } from './helpers.js';

describe('signing a browser in with a user name and password', () => {
  let r: RbacApp;
  let base: string;

  const signIn = async (fields: Record<string, string>, headers: Record<string, string> = {}): Promise<{ res: Response; body: any; cookie: string }> => {
    const res = await fetch(`${base}/hub/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(fields),
    });
    const body = await res.json();
    return { res, body, cookie: (res.headers.get('set-cookie') ?? '').split(';')[0]! };
  };

  beforeAll(async () => {
    // A low failure budget so the throttling test is quick; each test signs in from its own forwarded address.
    r = await startRbac({ options: { bruteForce: { maxFailures: 3 }, trustedProxies: ['127.0.0.1', '::1'] } });
    base = r.t.url('hub');
  });
  afterAll(() => r.stop());

  it('sets a password on create, never returns it, and signs in with the role permissions of the user', async () => {
    const created = await r.call('POST', '/hub/rbac/users', { body: { name: 'olga', roles: ['viewer'], password: 'correct horse battery' } });
    expect(created.status).toBe(201);
    expect(created.body.user).toMatchObject({ name: 'olga', roles: ['viewer'], hasPassword: true });
    expect(JSON.stringify(created.body)).not.toContain('correct horse');
    expect(JSON.stringify(created.body)).not.toContain('scrypt');
    const listed = await r.call('GET', '/hub/rbac/users');
    expect(JSON.stringify(listed.body)).not.toContain('scrypt');

    const { res, body, cookie } = await signIn({ username: 'olga', password: 'correct horse battery' }, { 'x-forwarded-for': '203.0.113.1' });
    expect(res.status).toBe(200);
    expect(body).toMatchObject({ ok: true, tenant: 'default', user: { name: 'olga', id: created.body.user.id }, method: 'password' });
    expect(res.headers.get('set-cookie')).toMatch(/^tessera_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict/);

    const me = await call(base, 'GET', '/hub/me', { headers: { cookie } });
    expect(me.status).toBe(200);
    expect(me.body.user.name).toBe('olga');
    expect(me.body.key).toBeNull();
    const viewer = await r.call('GET', '/hub/rbac/roles');
    const viewerPermissions = viewer.body.roles.find((role: { name: string }) => role.name === 'viewer').permissions;
    expect([...me.body.permissions].sort()).toEqual([...viewerPermissions].sort());
    // A viewer cannot manage users, with a password session as with a key.
    const denied = await call(base, 'GET', '/hub/rbac/users', { headers: { cookie } });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('permission_denied');
  });

  it('answers one 401 invalid_credentials for a wrong password, an unknown user, a user without a password and a disabled user', async () => {
    await r.call('POST', '/hub/rbac/users', { body: { name: 'nopass', roles: ['viewer'] } });
    const dora = await r.call('POST', '/hub/rbac/users', { body: { name: 'dora', roles: ['viewer'], password: 'dora dora dora dora' } });
    await r.call('PUT', '/hub/rbac/users', { body: { id: dora.body.user.id, disabled: true } });
    const attempts = [
      { username: 'olga', password: 'wrong horse battery' },
      { username: 'nobody', password: 'correct horse battery' },
      { username: 'nopass', password: 'correct horse battery' },
      { username: 'dora', password: 'dora dora dora dora' },
    ];
    for (const [i, attempt] of attempts.entries()) {
      const { res, body } = await signIn(attempt, { 'x-forwarded-for': `203.0.113.${10 + i}` });
      expect(res.status).toBe(401);
      expect(body).toEqual({
        ok: false,
        error: { code: 'invalid_credentials', message: 'The user name or password is not valid.' },
      });
      expect(res.headers.get('set-cookie')).toBeNull();
    }
    const audit = await r.call('GET', '/hub/rbac/audit?action=auth.failed');
    expect(audit.status).toBe(200);
    expect(audit.body.entries.some((e: any) => e.details?.reason === 'invalid_credentials' && e.details?.route === '/hub/session')).toBe(true);
  });

  it('blocks an address after repeated wrong passwords, the right one included, with 429 and Retry-After', async () => {
    const from = { 'x-forwarded-for': '198.51.100.7' };
    for (let i = 0; i < 3; i++) expect((await signIn({ username: 'olga', password: `guess number ${i}!` }, from)).res.status).toBe(401);
    const blocked = await signIn({ username: 'olga', password: 'correct horse battery' }, from);
    expect(blocked.res.status).toBe(429);
    expect(blocked.body.error.code).toBe('too_many_auth_failures');
    expect(Number(blocked.res.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another address is not affected.
    expect((await signIn({ username: 'olga', password: 'correct horse battery' }, { 'x-forwarded-for': '198.51.100.8' })).res.status).toBe(200);
  });

  it('changing a password signs out the sessions opened with the old one; null removes it', async () => {
    const user = await r.call('POST', '/hub/rbac/users', { body: { name: 'pavel', roles: ['viewer'], password: 'first password here' } });
    const from = { 'x-forwarded-for': '203.0.113.50' };
    const first = await signIn({ username: 'pavel', password: 'first password here' }, from);
    expect((await call(base, 'GET', '/hub/me', { headers: { cookie: first.cookie } })).status).toBe(200);

    const changed = await r.call('PUT', '/hub/rbac/users', { body: { id: user.body.user.id, password: 'second password here' } });
    expect(changed.status).toBe(200);
    expect(changed.body.user.hasPassword).toBe(true);
    const old = await call(base, 'GET', '/hub/me', { headers: { cookie: first.cookie } });
    expect(old.status).toBe(401);
    expect(old.body.error.code).toBe('session_invalid');
    expect((await signIn({ username: 'pavel', password: 'first password here' }, from)).res.status).toBe(401);
    expect((await signIn({ username: 'pavel', password: 'second password here' }, from)).res.status).toBe(200);

    const removed = await r.call('PUT', '/hub/rbac/users', { body: { id: user.body.user.id, password: null } });
    expect(removed.body.user.hasPassword).toBe(false);
    expect((await signIn({ username: 'pavel', password: 'second password here' }, from)).res.status).toBe(401);
  });

  it('signs in to the tenant named in the body, and refuses a short password when it is set', async () => {
    const headers = { 'x-tenant': 'acme' };
    const short = await r.call('POST', '/hub/rbac/users', { headers, body: { name: 'ann', roles: ['viewer'], password: 'short' } });
    expect(short.status).toBe(400);
    expect(short.body.error.code).toBe('validation_failed');
    const created = await r.call('POST', '/hub/rbac/users', { headers, body: { name: 'ann', roles: ['viewer'], password: 'acme password one' } });
    expect(created.status).toBe(201);
    const from = { 'x-forwarded-for': '203.0.113.60' };
    // Without the tenant, `ann` is looked up in the default tenant, where she does not exist.
    expect((await signIn({ username: 'ann', password: 'acme password one' }, from)).res.status).toBe(401);
    const ok = await signIn({ username: 'ann', password: 'acme password one', tenant: 'acme' }, from);
    expect(ok.res.status).toBe(200);
    expect(ok.body.tenant).toBe('acme');
    const me = await call(base, 'GET', '/hub/me', { headers: { cookie: ok.cookie } });
    expect(me.body).toMatchObject({ tenant: 'acme', homeTenant: 'acme', user: { name: 'ann' } });
  });

  it('needs the CSRF token for a state change with a password session, as with a key session', async () => {
    const from = { 'x-forwarded-for': '203.0.113.70' };
    await r.call('POST', '/hub/rbac/users', { body: { name: 'root2', roles: ['admin'], password: 'admin password one' } });
    const { cookie, body } = await signIn({ username: 'root2', password: 'admin password one' }, from);
    const without = await call(base, 'POST', '/hub/rbac/users', { headers: { cookie }, body: { name: 'x1', roles: ['viewer'] } });
    expect(without.status).toBe(403);
    expect(without.body.error.code).toBe('csrf_token_invalid');
    const withToken = await call(base, 'POST', '/hub/rbac/users', {
      headers: { cookie, 'x-csrf-token': body.session.csrfToken },
      body: { name: 'x1', roles: ['viewer'] },
    });
    expect(withToken.status).toBe(201);
    // The audit names the user, not a key, as the actor.
    const audit = await r.call('GET', '/hub/rbac/audit?action=user.created');
    const entry = audit.body.entries.find((e: any) => e.details?.name === 'x1');
    expect(entry.actor).toEqual({ userId: expect.any(String), userName: 'root2', keyId: null });
  });
});
