import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../helpers/app.js';
import { call, hubListener, startRbac, type RbacApp } from './helpers.js';
import { builtinPermissions } from '../../../scripts/generate-docs.js';
import { builtInRoles } from '../../../plugins/rbac/roles.js';

const probe = { module: fileURLToPath(new URL('./fixtures/probe/index.ts', import.meta.url)) };

/** The role x permission table exactly as docs/rbac.md publishes it. */
function documentedMatrix(): { roles: string[]; permissions: string[]; grants: Map<string, Set<string>> } {
  const doc = readFileSync(`${repoRoot}docs/rbac.md`, 'utf8');
  const table = doc.slice(doc.indexOf('### Role x permission matrix'), doc.indexOf('<!-- END GENERATED -->'));
  const rows = table.split('\n').filter((l) => l.startsWith('| '));
  const roles = rows[0]!
    .split('|')
    .slice(2, -1)
    .map((c) => c.trim().replace(/`/g, ''));
  const grants = new Map(roles.map((r) => [r, new Set<string>()]));
  const permissions: string[] = [];
  for (const row of rows.slice(1)) {
    const cells = row
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
    const permission = cells[0]!.replace(/`/g, '');
    permissions.push(permission);
    roles.forEach((role, i) => {
      if (cells[i + 1] === 'yes') grants.get(role)!.add(permission);
    });
  }
  return { roles, permissions, grants };
}

describe('every built-in role against every permission, driven by the documented matrix', () => {
  let r: RbacApp;
  const matrix = documentedMatrix();
  const keys = new Map<string, string>();
  beforeAll(async () => {
    // Exactly the built-in plugins whose permissions the documented matrix covers, plus the probe.
    r = await startRbac({
      manifest: {
        listeners: [{ ...hubListener, plugins: ['rbac', 'probe'] }],
        plugins: { rbac: {}, search: {}, graph: {}, bulk: {}, workflow: {}, agent: {}, probe },
      },
    });
    for (const role of matrix.roles) keys.set(role, (await r.userWithKey(`${role}-user`, [role])).secret);
  });
  afterAll(() => r.stop());

  it('documents six roles over every permission the built-in plugins declare', async () => {
    expect(matrix.roles).toEqual(['superadmin', 'admin', 'developer', 'operator', 'viewer', 'invoker']);
    expect(matrix.permissions).toEqual((await builtinPermissions()).map((p) => p.name));
  });

  for (const role of ['superadmin', 'admin', 'developer', 'operator', 'viewer', 'invoker']) {
    it(`${role}: allowed exactly where the matrix says yes, 403 permission_denied naming the permission elsewhere`, async () => {
      const base = r.t.url('hub');
      for (const permission of matrix.permissions) {
        const answer = await call(base, 'GET', `/probe/${permission.replace(':', '/')}`, { key: keys.get(role)! });
        if (matrix.grants.get(role)!.has(permission)) {
          expect({ permission, status: answer.status, body: answer.body }).toEqual({
            permission,
            status: 200,
            body: { ok: true, permission, tenant: 'default' },
          });
        } else {
          expect({ permission, status: answer.status, body: answer.body }).toEqual({
            permission,
            status: 403,
            body: { ok: false, error: { code: 'permission_denied', message: `Missing permission ${permission}.`, details: { permission } } },
          });
        }
      }
    });
  }

  it('lists the same bundles at GET /hub/rbac/roles', async () => {
    const answer = await r.call('GET', '/hub/rbac/roles');
    expect(answer.status).toBe(200);
    const listed = new Map<string, string[]>(answer.body.roles.map((role: { name: string; permissions: string[] }) => [role.name, role.permissions]));
    // The probe's own `things:read` is outside the documented matrix: compare on the matrix's permissions.
    for (const role of matrix.roles) expect(new Set(listed.get(role)!.filter((p) => matrix.permissions.includes(p)))).toEqual(matrix.grants.get(role));
  });

  it('grants a custom role exactly its permissions', async () => {
    const created = await r.call('POST', '/hub/rbac/roles', {
      body: { name: 'tester', description: 'reads and writes documents', permissions: ['search:write', 'search:read'] },
    });
    expect(created).toMatchObject({
      status: 201,
      body: { ok: true, role: { name: 'tester', description: 'reads and writes documents', permissions: ['search:read', 'search:write'], builtIn: false } },
    });
    const { secret } = await r.userWithKey('tess', ['tester']);
    const base = r.t.url('hub');
    for (const permission of matrix.permissions) {
      const expected = permission === 'search:read' || permission === 'search:write' ? 200 : 403;
      expect({ permission, status: (await call(base, 'GET', `/probe/${permission.replace(':', '/')}`, { key: secret })).status }).toEqual({
        permission,
        status: expected,
      });
    }
  });
});

describe("a third-party plugin's declared permission", () => {
  let r: RbacApp;
  beforeAll(async () => {
    r = await startRbac({
      manifest: { listeners: [{ ...hubListener, plugins: ['rbac', 'probe'] }], plugins: { rbac: { options: { extraPermissions: ['legacy:read'] } }, probe } },
    });
  });
  afterAll(() => r.stop());

  it('is held by admin and superadmin with no rbac configuration, and custom roles grant it', async () => {
    const base = r.t.url('hub');
    expect((await r.call('GET', '/probe/things/read')).status).toBe(200);
    const admin = await r.userWithKey('ada', ['admin']);
    expect((await call(base, 'GET', '/probe/things/read', { key: admin.secret })).status).toBe(200);
    const viewer = await r.userWithKey('vic', ['viewer']);
    expect((await call(base, 'GET', '/probe/things/read', { key: viewer.secret })).status).toBe(403);
    await r.call('POST', '/hub/rbac/roles', { body: { name: 'things-reader', permissions: ['things:read'] } });
    const reader = await r.userWithKey('tom', ['things-reader']);
    expect((await call(base, 'GET', '/probe/things/read', { key: reader.secret })).status).toBe(200);
    const permissions = await r.call('GET', '/hub/rbac/permissions');
    const listed = permissions.body.permissions as Array<{ name: string; plugin: string; description: string }>;
    expect(listed.find((p) => p.name === 'things:read')).toEqual({
      name: 'things:read',
      plugin: 'probe',
      description: 'Read things (a third-party permission).',
    });
    // The older option still works: its names can be granted, listed as the deployment's own.
    expect(listed.at(-1)).toEqual({ name: 'legacy:read', plugin: 'deployment', description: 'Declared by this deployment (`extraPermissions`).' });
  });
});

describe('the built-in roles', () => {
  it('name only permissions that a built-in plugin or the runtime declares', async () => {
    const declared = new Set((await builtinPermissions()).map((p) => p.name));
    const undeclared = builtInRoles.flatMap((role) =>
      (Array.isArray(role.permissions) ? role.permissions : []).filter((p) => !declared.has(p)).map((p) => `${role.name}: ${p}`),
    );
    expect(undeclared).toEqual([]);
  });
});
