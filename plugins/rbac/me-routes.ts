import type { RbacCore } from './core.js';
import { principalOf, tags, type Routes } from './route-helpers.js';

export function registerMeRoutes(routes: Routes, core: RbacCore): void {
  routes.add({
    method: 'GET',
    path: '/hub/me',
    permission: 'authenticated',
    authenticate: 'always',
    throttle: 'light',
    summary: 'The caller: its user, tenant, key (null for a password session) and effective permissions',
    tags,
    handler: async (request) => {
      const principal = principalOf(request);
      const user = core.users.get(principal.homeTenant, principal.userId)!;
      const key = principal.kind === 'key' ? core.keys.get(principal.id) : undefined;
      return {
        tenant: principal.tenant,
        homeTenant: principal.homeTenant,
        user: { id: user.id, name: user.name, displayName: user.displayName, email: user.email, roles: user.roles },
        key: key ? core.keys.view(key, Date.now()) : null,
        permissions: principal.permissions,
      };
    },
  });

  routes.add({
    method: 'GET',
    path: '/hub/rbac/permissions',
    permission: 'authenticated',
    authenticate: 'always',
    throttle: 'light',
    summary: 'Every permission this deployment knows, for building scopes and roles',
    tags,
    handler: async (request) => {
      principalOf(request);
      return { permissions: core.permissions.describe() };
    },
  });
}
