import type { RbacCore } from './core.js';
import { registerAuditRoutes } from './audit-routes.js';
import { registerKeyRoutes } from './key-routes.js';
import { registerMeRoutes } from './me-routes.js';
import { registerRoleRoutes } from './role-routes.js';
import { registerSessionRoutes } from './session-routes.js';
import type { Routes } from './route-helpers.js';
import { registerUserRoutes } from './user-routes.js';

/** Every route of the plugin: seed 001's `/hub/me` and `/hub/rbac/*` rows plus the designed ones. */
export function registerRoutes(routes: Routes, core: RbacCore): void {
  registerMeRoutes(routes, core);
  registerUserRoutes(routes, core);
  registerRoleRoutes(routes, core);
  registerKeyRoutes(routes, core);
  registerAuditRoutes(routes, core);
  registerSessionRoutes(routes, core);
}
