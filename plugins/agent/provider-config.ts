import type { StoreNamespace } from 'tessera-runtime/plugin';
import type { SecretBox } from './secret-box.js';

export const syncIntervals = { hourly: '1h', '6h': '6h', daily: '1d', weekly: '7d' } as const;
export type SyncInterval = keyof typeof syncIntervals;

interface StoredConfig {
  baseUrl?: string;
  syncInterval?: SyncInterval | null;
  sealedKey?: string;
  last4?: string;
  tierOverrides?: Record<string, number>;
  updatedAt?: string;
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
  apiKey: { configured: boolean; last4?: string };
  syncInterval: SyncInterval | null;
  tierOverrides: Record<string, number>;
  updatedAt: string | null;
}

/**
 * Each tenant's routing-provider settings. The API key is sealed with the key file's key before it
 * is stored, and only `ProviderConfig.apiKey()` opens it, for the provider call itself.
 */
export class ProviderConfig {
  private readonly db;

  constructor(
    store: StoreNamespace,
    private readonly box: SecretBox,
    private readonly defaultBaseUrl: string,
  ) {
    this.db = store.db('provider-config');
  }

  private raw(tenant: string): StoredConfig {
    return (this.db.get(tenant) as StoredConfig | undefined) ?? {};
  }

  view(tenant: string): ConfigView {
    const c = this.raw(tenant);
    return {
      baseUrl: c.baseUrl ?? this.defaultBaseUrl,
      baseUrlSource: c.baseUrl ? 'tenant' : 'manifest',
      apiKey: c.sealedKey ? { configured: true, last4: c.last4! } : { configured: false },
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

  apiKey(tenant: string): string | undefined {
    const sealed = this.raw(tenant).sealedKey;
    return sealed ? this.box.open(sealed) : undefined;
  }

  tierOverrides(tenant: string): Record<string, number> {
    return this.raw(tenant).tierOverrides ?? {};
  }

  async update(tenant: string, change: ConfigChange): Promise<ConfigView> {
    const c = { ...this.raw(tenant) };
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
