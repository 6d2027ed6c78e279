import { z } from 'tessera-runtime/plugin';
import { auditActions } from './audit.js';
import type { RbacCore } from './core.js';
import { invalidCursor, permissionDenied } from './errors.js';
import { CROSS_TENANT_PERMISSION } from './permissions.js';
import { principalOf, pageQuery, tags, type Routes } from './route-helpers.js';

const auditQuery = pageQuery
  .extend({
    action: z.enum(auditActions).optional().describe('Only entries of this action.'),
    system: z.enum(['true', 'false']).default('false').describe('The system partition (unattributable failures, address blocks); needs tenants:manage.'),
  })
  .strict();

export function registerAuditRoutes(routes: Routes, core: RbacCore): void {
  routes.add({
    method: 'GET',
    path: '/hub/rbac/audit',
    permission: 'rbac:manage',
    authenticate: 'always',
    query: auditQuery,
    summary: "The tenant's audit log, newest first",
    tags,
    handler: async (request) => {
      const principal = principalOf(request);
      const { cursor, limit, action, system } = request.query;
      if (cursor !== undefined && !/^[1-9]\d{0,15}$/.test(cursor)) throw invalidCursor();
      if (system === 'true' && !principal.permissions.includes(CROSS_TENANT_PERMISSION)) throw permissionDenied(CROSS_TENANT_PERMISSION);
      const page = core.audit.page(system === 'true' ? null : principal.tenant, { limit, before: cursor === undefined ? undefined : Number(cursor), action });
      return { entries: page.entries, nextCursor: page.nextCursor };
    },
  });
}
