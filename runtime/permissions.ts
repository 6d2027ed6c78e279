import type { PermissionDeclaration, PermissionInfo } from './plugin-types.js';

export type { PermissionInfo } from './plugin-types.js';

/** A permission name as plugins declare and routes require it: `domain:action`. */
export const permissionNamePattern = /^[a-z][a-z0-9-]*:[a-z][a-z0-9-]*$/;

/** Route permissions that are not names: `public` (no credential) and `authenticated` (any valid one). */
export const builtinRoutePermissions: ReadonlySet<string> = new Set(['public', 'authenticated']);

/** The runtime's own permissions, for the routes it mounts on every listener. */
export const runtimePermissions: readonly PermissionDeclaration[] = [
  { name: 'system:read', description: 'Read the deployment registry (`GET /v1/system`): plugins, listeners, jobs, store and kernel state.' },
];

/**
 * Every permission the loaded plugins declare, in load order. The auth provider reads it, so keys
 * can be scoped to any plugin's permissions without extra configuration.
 */
export class PermissionRegistry {
  private readonly byName = new Map<string, PermissionInfo>();
  /** One frozen array per state of the registry, so readers can cache on its identity. */
  private snapshot: readonly PermissionInfo[] = Object.freeze([]);

  add(plugin: string, declarations: readonly PermissionDeclaration[]): { duplicate?: PermissionInfo; invalid?: string } {
    for (const d of declarations) {
      if (!permissionNamePattern.test(d.name)) return { invalid: d.name };
      const existing = this.byName.get(d.name);
      if (existing) return { duplicate: existing };
    }
    for (const d of declarations) this.byName.set(d.name, Object.freeze({ name: d.name, description: d.description, plugin }));
    if (declarations.length > 0) this.snapshot = Object.freeze([...this.byName.values()]);
    return {};
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  list(): readonly PermissionInfo[] {
    return this.snapshot;
  }
}
