/**
 * The one list of permissions Tessera's products declare on their routes. Role bundles, scope
 * validation, the docs/rbac.md tables and the role-matrix test are all derived from it.
 */
export interface PermissionDoc {
  name: string;
  product: 'workflow' | 'platform' | 'search' | 'agent' | 'rbac' | 'deployment';
  description: string;
}

/**
 * The cross-tenant permission: a key holding it may act in any tenant by sending `X-Tenant`.
 * Only the `superadmin` role carries it, so a tenant's own `admin` can never leave its tenant.
 */
export const CROSS_TENANT_PERMISSION = 'tenants:manage';

export const permissionCatalogue: readonly PermissionDoc[] = [
  { name: 'workflow:read', product: 'workflow', description: 'List workflows, their definitions and registered APIs; validate a specification.' },
  { name: 'workflow:create', product: 'workflow', description: 'Create and register a workflow definition.' },
  { name: 'workflow:edit', product: 'workflow', description: 'Update a workflow definition.' },
  { name: 'workflow:delete', product: 'workflow', description: 'Remove a workflow definition.' },
  { name: 'workflow:test', product: 'workflow', description: 'List and run regression tests.' },
  { name: 'workflow:deploy', product: 'workflow', description: 'Plan deployments and export bundles.' },
  { name: 'telemetry:read', product: 'workflow', description: 'Read execution traces, step timelines and latencies.' },
  { name: 'metrics:read', product: 'platform', description: 'Read the metrics summary under `/hub/metrics` (the `/metrics` scrape itself stays public).' },
  { name: 'api:invoke', product: 'workflow', description: 'Call workflow routes when the platform protects invocation (`protectInvoke`).' },
  { name: 'search:read', product: 'search', description: 'Search, suggest and read documents and index metadata.' },
  { name: 'search:write', product: 'search', description: 'Add, update and delete documents (single and bulk).' },
  { name: 'index:admin', product: 'search', description: 'Create, configure and drop indexes; crawls, scans and schedules.' },
  { name: 'agent:read', product: 'agent', description: 'Read agent telemetry, the model catalogue, repository graphs and cache statistics.' },
  { name: 'agent:remediate', product: 'agent', description: 'Submit tickets and story events, request remediation and pull-request reviews, use agent tools.' },
  { name: 'agent:apply', product: 'agent', description: 'Apply patches to disk, create branches and open pull requests.' },
  { name: 'agent:admin', product: 'agent', description: 'Change models, provider configuration, playbooks and token budgets; clear caches; replay dead letters.' },
  { name: 'rbac:manage', product: 'rbac', description: 'Manage users, roles, API keys and read the audit log, within the caller\'s tenant.' },
  { name: CROSS_TENANT_PERMISSION, product: 'rbac', description: 'Act in any tenant (`X-Tenant`), read the system audit partition, grant `superadmin`.' },
];

export const permissionNames: readonly string[] = permissionCatalogue.map((p) => p.name);

/** A permission name as routes declare it: `domain:action`. */
export const permissionNamePattern = /^[a-z][a-z0-9-]*:[a-z][a-z0-9-]*$/;

/** The catalogue plus a deployment's `extraPermissions` (third-party plugins' route permissions). */
export class PermissionSet {
  readonly all: readonly string[];
  private readonly known: ReadonlySet<string>;

  constructor(extra: readonly string[] = []) {
    this.all = [...permissionNames, ...extra.filter((p) => !permissionNames.includes(p))];
    this.known = new Set(this.all);
  }

  /** The catalogue's entries, then the deployment's extras. */
  describe(): PermissionDoc[] {
    const extra = this.all.slice(permissionNames.length).map((name) => ({ name, product: 'deployment' as const, description: 'Declared by this deployment (`extraPermissions`).' }));
    return [...permissionCatalogue, ...extra];
  }

  has(permission: string): boolean {
    return this.known.has(permission);
  }

  /** Names in `wanted` that are not permissions at all. */
  unknown(wanted: readonly string[]): string[] {
    return wanted.filter((p) => !this.known.has(p));
  }

  /** Sorted in catalogue order, duplicates removed. */
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
