import { AsyncLocalStorage } from 'node:async_hooks';
import type { TokenBudget } from './budget.js';
import type { CatalogModel } from './seed-models.js';

/** A tenant's provider settings as stored (`ProviderConfig`): the key sealed, never plain. */
export interface StoredProviderConfig {
  baseUrl?: string;
  syncInterval?: 'hourly' | '6h' | 'daily' | 'weekly' | null;
  sealedKey?: string;
  last4?: string;
  tierOverrides?: Record<string, number>;
  updatedAt?: string;
}

/**
 * What a job handed to a `tessera worker` process needs of its tenant's settings, taken on the
 * service when the job is put on the shared queue (docs/agent-api.md, "Workers"): the provider
 * settings of `/api/v1/models/config` with the API key sealed with the **queue's** key (never the
 * service's, never plain), the tenant's own catalogue models (synced and custom) and hidden ids,
 * which the router picks models from, and the token budget (output ceiling, engagement mode).
 */
export interface TenantSettingsSnapshot {
  v: 1;
  provider: StoredProviderConfig;
  catalog: { models: CatalogModel[]; hidden: string[] };
  budget: TokenBudget;
  takenAt: string;
}

interface Scope {
  tenant: string;
  snapshot: TenantSettingsSnapshot;
  /** Opens `snapshot.provider.sealedKey` (the queue's key). */
  open(sealed: string): string;
}

/**
 * A run's tenant settings in preference to the store's: a worker runs an offloaded job inside
 * `run(...)`, and everything that reads the tenant's provider settings, catalogue or budget during
 * that job (through its async context, not a global) sees the snapshot the job carried. Other
 * tenants, and other jobs running at the same time, keep reading the store. The key is opened
 * only when a provider call asks for it, and lives in memory only.
 */
export class SettingsOverlay {
  private readonly als = new AsyncLocalStorage<Scope>();

  run<T>(tenant: string, snapshot: TenantSettingsSnapshot, open: (sealed: string) => string, fn: () => T): T {
    return this.als.run({ tenant, snapshot, open }, fn);
  }

  /** The current run's settings, when the run is `tenant`'s. */
  of(tenant: string): Scope | undefined {
    const scope = this.als.getStore();
    return scope && scope.tenant === tenant ? scope : undefined;
  }
}

/** Whether `value` looks like a snapshot this version wrote (a queue item's `settings`). */
export function isSnapshot(value: unknown): value is TenantSettingsSnapshot {
  const v = value as Partial<TenantSettingsSnapshot> | null;
  return !!v && typeof v === 'object' && v.v === 1 && !!v.provider && !!v.catalog && Array.isArray(v.catalog.models) && !!v.budget;
}
