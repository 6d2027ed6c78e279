import type { StoreNamespace } from 'tessera-runtime/plugin';
import { errors } from './errors.js';
import { providerOf, seedModels, type CatalogModel } from './seed-models.js';
import type { SettingsOverlay } from './tenant-settings.js';
import { tierInfo, tiers } from './tiers.js';

type Db = ReturnType<StoreNamespace['db']>;

export interface CustomModelInput {
  id: string;
  name?: string | undefined;
  tier: number;
  contextLength?: number | undefined;
  pricing: { promptPer1M: number; completionPer1M: number };
  latencyMs?: number | undefined;
  benchmarks?: Record<string, number> | undefined;
}

export interface CatalogFilter {
  tier?: number | undefined;
  q?: string | undefined;
}

/**
 * The model catalogue of each tenant: the shipped seed set, the models its last sync brought, and
 * its custom models. A synced model replaces a seed model of the same id. Removing a seed or synced
 * model hides it (a later sync does not bring it back); removing a custom model deletes it.
 */
export class Catalog {
  private readonly models: Db;
  private readonly hidden: Db;

  constructor(
    store: StoreNamespace,
    private readonly overlay?: SettingsOverlay,
  ) {
    this.models = store.db('models');
    this.hidden = store.db('hidden-models');
  }

  /** The tenant's own models (synced and custom) and the ids it hid, as stored: what a worker's run carries. */
  own(tenant: string): { models: CatalogModel[]; hidden: string[] } {
    const carried = this.overlay?.of(tenant);
    if (carried) return carried.snapshot.catalog;
    const models: CatalogModel[] = [];
    for (const { value } of this.models.getRange({ start: [tenant], end: [tenant, '\uffff'] })) models.push(value as CatalogModel);
    const hidden: string[] = [];
    for (const { key } of this.hidden.getRange({ start: [tenant], end: [tenant, '\uffff'] })) hidden.push(String((key as unknown[])[1]));
    return { models, hidden };
  }

  /** Every visible model of the tenant, by tier then prompt price then id (inside a worker's run, from the settings it carried). */
  list(tenant: string, filter: CatalogFilter = {}): CatalogModel[] {
    const byId = new Map<string, CatalogModel>();
    for (const m of seedModels) byId.set(m.id, m);
    const { models: own, hidden: hiddenIds } = this.own(tenant);
    const hidden = new Set(hiddenIds);
    // Synced first, custom last: a custom model wins over a synced one of the same id.
    for (const m of [...own].sort((a, b) => Number(a.custom) - Number(b.custom))) byId.set(m.id, m);
    const q = filter.q?.toLowerCase();
    return [...byId.values()]
      .filter((m) => m.custom || !hidden.has(m.id))
      .filter((m) => filter.tier === undefined || m.tier === filter.tier)
      .filter((m) => q === undefined || m.id.toLowerCase().includes(q) || m.name.toLowerCase().includes(q) || m.category.toLowerCase().includes(q))
      .sort((a, b) => a.tier - b.tier || a.pricing.promptPer1M - b.pricing.promptPer1M || a.id.localeCompare(b.id));
  }

  get(tenant: string, id: string): CatalogModel | undefined {
    return this.list(tenant).find((m) => m.id === id);
  }

  /** The tenant's synced models (what the next sync compares with). */
  synced(tenant: string): CatalogModel[] {
    const out: CatalogModel[] = [];
    for (const { value } of this.models.getRange({ start: [tenant], end: [tenant, '\uffff'] })) {
      if ((value as CatalogModel).source === 'sync') out.push(value as CatalogModel);
    }
    return out;
  }

  async addCustom(tenant: string, input: CustomModelInput): Promise<CatalogModel> {
    const info = tierInfo(input.tier);
    if (!info) throw errors.unknown_tier({ tier: input.tier, max: tiers.length });
    if (this.get(tenant, input.id)) throw errors.model_exists({ id: input.id });
    const model: CatalogModel = {
      id: input.id,
      name: input.name ?? input.id,
      provider: providerOf(input.id),
      tier: input.tier,
      category: info.category,
      contextLength: input.contextLength ?? 8192,
      pricing: { promptPer1M: input.pricing.promptPer1M, completionPer1M: input.pricing.completionPer1M },
      latencyMs: input.latencyMs ?? info.latencyMs,
      benchmarks: input.benchmarks ?? {},
      custom: true,
      source: 'custom',
      updatedAt: new Date().toISOString(),
    };
    await this.models.put([tenant, input.id], model);
    return model;
  }

  /** Deletes a custom model or hides a seed/synced one; `undefined` when the tenant sees no such model. */
  async remove(tenant: string, id: string): Promise<CatalogModel | undefined> {
    const model = this.get(tenant, id);
    if (!model) return undefined;
    if (model.custom) {
      await this.models.remove([tenant, id]);
    } else {
      await this.hidden.put([tenant, id], { hiddenAt: new Date().toISOString() });
    }
    return model;
  }

  /** Replaces the tenant's synced set in one transaction. */
  async replaceSynced(tenant: string, store: StoreNamespace, next: CatalogModel[]): Promise<void> {
    const keep = new Set(next.map((m) => m.id));
    const stale = this.synced(tenant).filter((m) => !keep.has(m.id));
    await store.transaction(() => {
      for (const m of stale) void this.models.remove([tenant, m.id]);
      for (const m of next) {
        const existing = this.models.get([tenant, m.id]) as CatalogModel | undefined;
        if (existing?.custom) continue;
        void this.models.put([tenant, m.id], m);
      }
    });
  }
}
