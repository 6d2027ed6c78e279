import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startRbac, type RbacApp } from './helpers.js';

describe('GET /hub/me', () => {
  let r: RbacApp;
  beforeAll(async () => {
    r = await startRbac();
  });
  afterAll(() => r.stop());

  it("answers the calling key's user, tenant, key and effective permissions", async () => {
    const dev = await r.userWithKey('margaret', ['developer'], { scopes: ['workflow:read', 'workflow:test'] });
    const me = await call(r.t.url('hub'), 'GET', '/hub/me', { key: dev.secret });
    expect(me.status).toBe(200);
    expect(me.body).toEqual({
      ok: true,
      tenant: 'default',
      homeTenant: 'default',
      user: { id: dev.user.id, name: 'margaret', displayName: null, email: null, roles: ['developer'] },
      key: { ...dev.key, lastUsedAt: expect.any(String) },
      permissions: ['workflow:read', 'workflow:test'],
    });
  });

  it('gives the bootstrap key the superadmin role and every permission', async () => {
    const me = await r.call('GET', '/hub/me');
    const all = (await r.call('GET', '/hub/rbac/permissions')).body.permissions.map((p: { name: string }) => p.name);
    expect(all).toHaveLength(19); // runtime 1, rbac 2, search 3, the workflow and agent permissions of the products fixture 13
    expect(me.body).toMatchObject({
      tenant: 'default',
      user: { name: 'admin', roles: ['superadmin'] },
      key: { name: 'bootstrap', scopes: all },
      permissions: all,
    });
  });
});
