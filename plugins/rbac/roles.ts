import type { Database } from 'lmdb';
import { CROSS_TENANT_PERMISSION, type PermissionSet } from './permissions.js';

export interface Role {
  name: string;
  description: string;
  permissions: string[];
  builtIn: boolean;
}

export interface CustomRoleRecord {
  tenant: string;
  name: string;
  description: string;
  permissions: string[];
  createdAt: string;
  createdBy: string;
}

const readAll = ['workflow:read', 'search:read', 'agent:read'];

/*
 * Roles name permissions of every product; a deployment without a product simply lacks its
 * permissions, and a role resolves to the ones that are declared.
 */

/**
 * The built-in roles, as data: `permissions` is either an explicit list or every permission of the
 * deployment (admin: all but the cross-tenant one; superadmin: all, and only the bootstrap user has it).
 */
export const builtInRoles: ReadonlyArray<{ name: string; description: string; permissions: readonly string[] | 'all' | 'all-in-tenant' }> = [
  { name: 'superadmin', description: 'Everything, in every tenant. Held by the bootstrap user.', permissions: 'all' },
  { name: 'admin', description: 'Everything within its own tenant.', permissions: 'all-in-tenant' },
  {
    name: 'developer',
    description: 'Builds workflows: create, edit, delete, test and read; writes search documents; requests remediation.',
    permissions: [...readAll, 'workflow:create', 'workflow:edit', 'workflow:delete', 'workflow:test', 'search:write', 'jobs:read', 'jobs:write'],
  },
  {
    name: 'operator',
    description: 'Runs the platform: deploy, telemetry, metrics, the deployment registry and read.',
    permissions: [...readAll, 'workflow:deploy', 'telemetry:read', 'metrics:read', 'system:read'],
  },
  { name: 'viewer', description: 'Read only.', permissions: readAll },
  { name: 'invoker', description: 'Calls workflow routes, nothing else.', permissions: ['api:invoke'] },
];

export const builtInRoleNames: readonly string[] = builtInRoles.map((r) => r.name);

export const roleNamePattern = /^[a-z][a-z0-9_-]{1,39}$/;

/** The built-in roles resolved against a deployment's permissions (the matrix docs/rbac.md shows). */
export function resolveBuiltInRoles(permissions: PermissionSet): Map<string, Role> {
  return new Map(
    builtInRoles.map((r) => {
      const list =
        r.permissions === 'all'
          ? [...permissions.all]
          : r.permissions === 'all-in-tenant'
            ? permissions.all.filter((p) => p !== CROSS_TENANT_PERMISSION)
            : permissions.normalise(r.permissions);
      return [r.name, { name: r.name, description: r.description, permissions: list, builtIn: true }];
    }),
  );
}

/** Built-in roles resolved against the deployment's permission set, plus each tenant's custom roles. */
export class Roles {
  private readonly permissions: () => PermissionSet;
  private resolvedFor?: PermissionSet;
  private resolved: ReadonlyMap<string, Role> = new Map();
  private readonly db: Database<CustomRoleRecord, [string, string]>;

  /** `permissions` is read when roles are first used: the deployment's list is complete only after every plugin's setup. */
  constructor(permissions: () => PermissionSet, db: Database<CustomRoleRecord, [string, string]>) {
    this.db = db;
    this.permissions = permissions;
  }

  private get builtIn(): ReadonlyMap<string, Role> {
    const current = this.permissions();
    if (current !== this.resolvedFor) {
      this.resolved = resolveBuiltInRoles(current);
      this.resolvedFor = current;
    }
    return this.resolved;
  }

  isBuiltIn(name: string): boolean {
    return this.builtIn.has(name);
  }

  get(tenant: string, name: string): Role | undefined {
    const builtIn = this.builtIn.get(name);
    if (builtIn) return builtIn;
    const custom = this.db.get([tenant, name]);
    return custom && { name: custom.name, description: custom.description, permissions: custom.permissions, builtIn: false };
  }

  /** Built-ins first, then the tenant's custom roles by name. */
  list(tenant: string): Role[] {
    const custom: Role[] = [];
    for (const { value } of this.db.getRange({ start: [tenant, ''], end: [tenant, '\uffff'] })) {
      custom.push({ name: value.name, description: value.description, permissions: value.permissions, builtIn: false });
    }
    return [...this.builtIn.values(), ...custom];
  }

  /** Names among `names` that are neither built in nor defined in `tenant`. */
  unknown(tenant: string, names: readonly string[]): string[] {
    return names.filter((n) => this.get(tenant, n) === undefined);
  }

  /** The union of the roles' permissions; roles that no longer exist grant nothing. */
  permissionsOf(tenant: string, roleNames: readonly string[]): Set<string> {
    const out = new Set<string>();
    for (const name of roleNames) for (const p of this.get(tenant, name)?.permissions ?? []) out.add(p);
    return out;
  }

  /** Writes a custom role unless the name is taken; `false` when it is. */
  async create(record: CustomRoleRecord): Promise<boolean> {
    if (this.builtIn.has(record.name)) return false;
    return this.db.transaction(() => {
      if (this.db.get([record.tenant, record.name]) !== undefined) return false;
      void this.db.put([record.tenant, record.name], record);
      return true;
    });
  }
}
