import type { StoreNamespace } from 'tessera-runtime/plugin';
import type { SecretBox } from './secret-box.js';
import type { SettingsOverlay, StoredProviderConfig } from './tenant-settings.js';

export const syncIntervals = { hourly: '1h', '6h': '6h', daily: '1d', weekly: '7d' } as const;
export type SyncInterval = keyof typeof syncIntervals;

type StoredConfig = StoredProviderConfig;

/**
 * The operator's provider key (`apiKeyEnv`), for tenants that set none of their own: `key` is the
 * variable's value (undefined when unset), `tenants` who may use it (`*`: every tenant).
 */
export interface OperatorKey {
  key: string | undefined;
  tenants: readonly string[];
}

export interface ConfigChange {
  apiKey?: string | null | undefined;
  syncInterval?: SyncInterval | null | undefined;
  baseUrl?: string | null | undefined;
  tierOverrides?: Record<string, number | null> | undefined;
}

/** What a read shows: never the key, only whether one is set and its last four characters. */
export interface ConfigView {
  baseUrl: string;
  baseUrlSource: 'tenant' | 'manifest';
  /** `operatorKey`: the tenant set none, and calls go out with the operator's (`apiKeyEnv`). */
  apiKey: { configured: boolean; last4?: string; operatorKey?: true };
  syncInterval: SyncInterval | null;
  tierOverrides: Record<string, number>;
  updatedAt: string | null;
}

/**
 * Each tenant's routing-provider settings. The API key is sealed with the key file's key before it
 * is stored, and only `ProviderConfig.apiKey()` opens it, for the provider call itself. Inside a
 * worker's run of an offloaded job, the settings the job carried (`SettingsOverlay`) are read
 * instead of the store's. A tenant with no key of its own, on the manifest's base URL, and allowed
 * by `apiKeyTenants`, uses the operator's key (`apiKeyEnv`); a tenant's own key always wins, and
 * the operator's key never goes to a base URL a tenant set.
 */
export class ProviderConfig {
  private readonly db;

  constructor(
    store: StoreNamespace,
    private readonly box: SecretBox,
    private readonly defaultBaseUrl: string,
    private readonly overlay?: SettingsOverlay,
    private readonly operator: OperatorKey = { key: undefined, tenants: [] },
  ) {
    this.db = store.db('provider-config');
  }

  /** The tenant's settings as stored (the key sealed), or as the current worker run carried them. */
  raw(tenant: string): StoredConfig {
    const carried = this.overlay?.of(tenant);
    if (carried) return carried.snapshot.provider;
    return (this.db.get(tenant) as StoredConfig | undefined) ?? {};
  }

  /** The tenant's own API key, opened (from the store, or from the settings a worker run carried). */
  private ownKey(tenant: string): string | undefined {
    const carried = this.overlay?.of(tenant);
    const sealed = carried ? carried.snapshot.provider.sealedKey : this.raw(tenant).sealedKey;
    if (!sealed) return undefined;
    return carried ? carried.open(sealed) : this.box.open(sealed);
  }

  /** Whether the operator's key serves `tenant`: set, the tenant allowed, no key and no base URL of its own. */
  private operatorServes(tenant: string, c: StoredConfig = this.raw(tenant)): boolean {
    const { key, tenants } = this.operator;
    return !!key && !c.sealedKey && !c.baseUrl && (tenants.includes('*') || tenants.includes(tenant));
  }

  /** Whether the tenant can call a model: a key of its own, a base URL of its own (a keyless local server), or the operator's key. */
  configured(tenant: string): boolean {
    const c = this.raw(tenant);
    return !!c.sealedKey || !!c.baseUrl || this.operatorServes(tenant, c);
  }

  view(tenant: string): ConfigView {
    const c = this.raw(tenant);
    return {
      baseUrl: c.baseUrl ?? this.defaultBaseUrl,
      baseUrlSource: c.baseUrl ? 'tenant' : 'manifest',
      apiKey: c.sealedKey
        ? { configured: true, last4: c.last4! }
        : this.operatorServes(tenant, c)
          ? { configured: false, operatorKey: true }
          : { configured: false },
      syncInterval: c.syncInterval ?? null,
      tierOverrides: c.tierOverrides ?? {},
      updatedAt: c.updatedAt ?? null,
    };
  }

  baseUrl(tenant: string): { url: string; trusted: boolean } {
    const c = this.raw(tenant);
    // The manifest's URL was written by the operator; a tenant's is checked by the egress policy.
    return c.baseUrl ? { url: c.baseUrl, trusted: false } : { url: this.defaultBaseUrl, trusted: true };
  }

  /** The key a provider call sends: the tenant's own, else the operator's where it serves the tenant. */
  apiKey(tenant: string): string | undefined {
    return this.ownKey(tenant) ?? (this.operatorServes(tenant) ? this.operator.key : undefined);
  }

  /** The tenant's settings for a worker: as stored, with its key (if any) sealed again with `queueBox`. */
  carried(tenant: string, queueBox: SecretBox): StoredConfig {
    const c = { ...this.raw(tenant) };
    const key = this.ownKey(tenant);
    if (key !== undefined) c.sealedKey = queueBox.seal(key);
    return c;
  }

  tierOverrides(tenant: string): Record<string, number> {
    return this.raw(tenant).tierOverrides ?? {};
  }

  async update(tenant: string, change: ConfigChange): Promise<ConfigView> {
    const c: StoredConfig = { ...(this.db.get(tenant) as StoredConfig | undefined) };
    if (change.apiKey === null) {
      delete c.sealedKey;
      delete c.last4;
    } else if (change.apiKey !== undefined) {
      c.sealedKey = this.box.seal(change.apiKey);
      c.last4 = change.apiKey.slice(-4);
    }
    if (change.baseUrl === null) delete c.baseUrl;
    else if (change.baseUrl !== undefined) c.baseUrl = change.baseUrl.replace(/\/+$/, '');
    if (change.syncInterval !== undefined) c.syncInterval = change.syncInterval;
    if (change.tierOverrides) {
      const overrides = { ...c.tierOverrides };
      for (const [id, tier] of Object.entries(change.tierOverrides)) {
        if (tier === null) delete overrides[id];
        else overrides[id] = tier;
      }
      c.tierOverrides = overrides;
    }
    c.updatedAt = new Date().toISOString();
    await this.db.put(tenant, c);
    return this.view(tenant);
  }
}
