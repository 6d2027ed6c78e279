import { reply, z } from 'tessera-runtime/plugin';
import { actorOf } from './authenticator.js';
import type { RbacCore } from './core.js';
import { grantExceedsPermissions, roleExists, unknownPermission } from './errors.js';
import { notHeld } from './permissions.js';
import { roleNamePattern, type CustomRoleRecord } from './roles.js';
import { auditContext, principalOf, tags, type Routes } from './route-helpers.js';

const createBody = z
  .object({
    name: z.string().regex(roleNamePattern, 'lowercase letters, digits, "_" and "-", 2-40, starting with a letter'),
    description: z.string().max(500).default(''),
    permissions: z.array(z.string()).max(100),
  })
  .strict();

export function registerRoleRoutes(routes: Routes, core: RbacCore): void {
  routes.add({
    method: 'GET',
    path: '/hub/rbac/roles',
    permission: 'rbac:manage',
    authenticate: 'always',
    throttle: 'light',
    summary: "Built-in roles, then the tenant's custom roles",
    tags,
    handler: async (request) => {
      const principal = principalOf(request);
      return { roles: core.roles.list(principal.tenant) };
    },
  });

  routes.add({
    method: 'POST',
    path: '/hub/rbac/roles',
    permission: 'rbac:manage',
    authenticate: 'always',
    body: createBody,
    summary: 'Define a custom role in the tenant',
    tags,
    handler: async (request) => {
      const principal = principalOf(request);
      const body = request.body;
      const unknown = core.permissions.unknown(body.permissions);
      if (unknown.length > 0) throw unknownPermission(unknown);
      const permissions = core.permissions.normalise(body.permissions);
      const missing = notHeld(permissions, principal.permissions);
      if (missing.length > 0) throw grantExceedsPermissions(missing, 'caller');
      const record: CustomRoleRecord = {
        tenant: principal.tenant,
        name: body.name,
        description: body.description,
        permissions,
        createdAt: new Date().toISOString(),
        createdBy: principal.userId,
      };
      if (!(await core.roles.create(record))) throw roleExists(body.name);
      await core.audit.append({
        tenant: record.tenant,
        action: 'role.created',
        actor: actorOf(principal),
        target: { type: 'role', id: record.name },
        ...auditContext(core, request),
        details: { permissions },
      });
      return reply(201, { role: { name: record.name, description: record.description, permissions, builtIn: false } });
    },
  });
}
