import { permissionNamePattern, type PermissionDeclaration, type PermissionInfo } from 'tessera-runtime/plugin';

export { permissionNamePattern };

/**
 * The cross-tenant permission: a key holding it may act in any tenant by sending `X-Tenant`.
 * Only the `superadmin` role carries it, so a tenant's own `admin` can never leave its tenant.
 */
export const CROSS_TENANT_PERMISSION = 'tenants:manage';

/**
 * rbac's own permissions. Every other product's permissions are declared by its plugin
 * (`definePlugin({permissions})`) and reach rbac through `ctx.auth.permissions()`.
 */
export const rbacPermissions: readonly PermissionDeclaration[] = [
  { name: 'rbac:manage', description: "Manage users, roles, API keys and read the audit log, within the caller's tenant." },
  { name: CROSS_TENANT_PERMISSION, description: 'Act in any tenant (`X-Tenant`), read the system audit partition, grant `superadmin`.' },
];

/** A permission as `GET /hub/rbac/permissions` lists it: who declared it and what it allows. */
export interface PermissionDoc {
  name: string;
  /** The declaring plugin, `runtime`, or `deployment` for rbac's `extraPermissions`. */
  plugin: string;
  description: string;
}

/** The deployment's declared permissions plus rbac's (deprecated) `extraPermissions`. */
export class PermissionSet {
  readonly all: readonly string[];
  private readonly docs: PermissionDoc[];
  private readonly known: ReadonlySet<string>;

  constructor(declared: readonly PermissionInfo[], extra: readonly string[] = []) {
    const names = declared.map((p) => p.name);
    const extras = extra.filter((p, i) => !names.includes(p) && extra.indexOf(p) === i);
    this.all = [...names, ...extras];
    this.docs = [
      ...declared.map((p) => ({ name: p.name, plugin: p.plugin, description: p.description })),
      ...extras.map((name) => ({ name, plugin: 'deployment', description: 'Declared by this deployment (`extraPermissions`).' })),
    ];
    this.known = new Set(this.all);
  }

  /** Declared permissions in load order, then the deployment's extras. */
  describe(): PermissionDoc[] {
    return this.docs.map((d) => ({ ...d }));
  }

  has(permission: string): boolean {
    return this.known.has(permission);
  }

  /** Names in `wanted` that are not permissions at all. */
  unknown(wanted: readonly string[]): string[] {
    return wanted.filter((p) => !this.known.has(p));
  }

  /** Sorted in declaration order, duplicates removed. */
  normalise(permissions: Iterable<string>): string[] {
    const set = new Set(permissions);
    return this.all.filter((p) => set.has(p));
  }
}

/** Members of `wanted` that `held` lacks. */
export function notHeld(wanted: readonly string[], held: readonly string[]): string[] {
  const have = new Set(held);
  return wanted.filter((p) => !have.has(p));
}
