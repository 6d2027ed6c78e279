import { definePlugin, defineToken } from 'tessera-runtime/plugin';
import { bootstrap } from './bootstrap.js';
import { createCore, RBAC_DATA_FORMAT } from './core.js';
import { rbacErrorCodes } from './errors.js';
import { rbacOptions } from './options.js';
import { rbacPermissions } from './permissions.js';
import { registerRoutes } from './routes.js';

export type { RbacPrincipal } from './authenticator.js';
export type { RbacOptions } from './options.js';

/** What dependents of `rbac` may resolve: the deployment's permissions and a check on a principal. */
export interface RbacService {
  /** Every permission a key can hold here (what the deployment's plugins declare, plus `extraPermissions`). */
  permissions(): readonly string[];
  /** Whether the request's principal holds `permission` (for checks inside a handler). */
  can(principal: { permissions: readonly string[] } | undefined, permission: string): boolean;
}

export const rbacService = defineToken<RbacService>('rbac.service');

/**
 * Users, roles, scoped API keys and tenants. As the manifest's `auth.provider` it authenticates
 * every non-public route of every listener with auth on; its own routes live under `/hub`.
 */
export default definePlugin({
  name: 'rbac',
  version: '1.0.0',
  options: rbacOptions,
  permissions: rbacPermissions,
  errorCodes: rbacErrorCodes,
  async setup(ctx) {
    await ctx.store.format(RBAC_DATA_FORMAT);
    const core = createCore(ctx);
    ctx.auth.setAuthenticator(core.authenticate);
    registerRoutes(ctx.routes, core);
    ctx.provide(rbacService, {
      useValue: {
        permissions: () => core.permissions.all,
        can: (principal, permission) => principal?.permissions.includes(permission) ?? false,
      },
    });
    ctx.onStart(async () => {
      await core.audit.start();
      await bootstrap(core, ctx.log);
    });
  },
});
