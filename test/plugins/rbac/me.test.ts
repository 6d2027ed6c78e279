import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../helpers/app.js';
import { builtinPermissions } from '../../../scripts/generate-docs.js';
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
    const listed = (await r.call('GET', '/hub/rbac/permissions')).body.permissions as Array<{ name: string; plugin: string; description: string }>;
    // Exactly what the loaded plugins declare, each by its own plugin (startRbac loads rbac, search and workflow).
    const loaded = new Set(['runtime', 'rbac', 'search', 'workflow']);
    const declared = (await builtinPermissions()).filter((p) => loaded.has(p.plugin));
    expect(listed).toEqual(declared.map((p) => ({ name: p.name, plugin: p.plugin, description: p.description })));
    const all = listed.map((p) => p.name);
    expect(me.body).toMatchObject({
      tenant: 'default',
      user: { name: 'admin', roles: ['superadmin'] },
      key: { name: 'bootstrap', scopes: all },
      permissions: all,
    });
  });
});

describe('GET /hub/rbac/permissions', () => {
  let r: RbacApp;
  beforeAll(async () => {
    r = await startRbac({ manifest: { plugins: { workflow: undefined, rbac: { options: { extraPermissions: ['legacy:read'] } } } } });
  });
  afterAll(() => r.stop());

  it('lists every permission of the deployment with the plugin that declared it, in the shape docs/rbac.md documents', async () => {
    const answer = await r.call('GET', '/hub/rbac/permissions');
    const loaded = new Set(['runtime', 'rbac', 'search']);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      ok: true,
      permissions: [
        ...(await builtinPermissions()).filter((p) => loaded.has(p.plugin)).map((p) => ({ name: p.name, plugin: p.plugin, description: p.description })),
        { name: 'legacy:read', plugin: 'deployment', description: 'Declared by this deployment (`extraPermissions`).' },
      ],
    });
    const doc = readFileSync(`${repoRoot}docs/rbac.md`, 'utf8');
    const row = doc.split('\n').find((l) => l.startsWith('| `GET /hub/rbac/permissions` |'))!;
    const documented = /\{permissions: \[\{([^}]*)\}\]\}/
      .exec(row)![1]!
      .split(',')
      .map((f) => f.trim());
    for (const entry of answer.body.permissions) expect(Object.keys(entry).sort()).toEqual([...documented].sort());
  });
});
