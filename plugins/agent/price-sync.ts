import { z, type EventLog, type StoreNamespace } from 'tessera-runtime/plugin';
import type { Catalog } from './catalog.js';
import type { Circuits } from './circuits.js';
import { errors } from './errors.js';
import type { ProviderConfig } from './provider-config.js';
import type { ProviderHttp } from './provider-http.js';
import { redact } from './redact.js';
import { providerOf, type CatalogModel } from './seed-models.js';
import { tierForPrice, tierInfo } from './tiers.js';

/** One entry of an OpenRouter-compatible `GET /models` (`data[]`); unknown fields are ignored. */
const listedModel = z.looseObject({
  id: z.string().min(1),
  name: z.string().optional(),
  context_length: z.number().nullish(),
  pricing: z.looseObject({ prompt: z.union([z.string(), z.number()]).optional(), completion: z.union([z.string(), z.number()]).optional() }).optional(),
});
const modelList = z.looseObject({ data: z.array(z.unknown()) });

export interface SyncReport {
  added: number;
  updated: number;
  removed: number;
  unchanged: number;
  skipped: number;
  changes: { added: string[]; updated: string[]; removed: string[] };
  source: string;
  syncedAt: string;
}

/** USD per token, as a string or number, to USD per million tokens; `undefined` when not a price. */
function perMillion(value: string | number | undefined): number | undefined {
  if (value === undefined) return 0;
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isFinite(n) || n < 0) return undefined;
  return Math.round(n * 1e6 * 1e6) / 1e6;
}

const same = (a: CatalogModel, b: CatalogModel): boolean =>
  a.name === b.name &&
  a.tier === b.tier &&
  a.contextLength === b.contextLength &&
  a.pricing.promptPer1M === b.pricing.promptPer1M &&
  a.pricing.completionPer1M === b.pricing.completionPer1M;

export interface PriceSyncDeps {
  store: StoreNamespace;
  catalog: Catalog;
  config: ProviderConfig;
  http: ProviderHttp;
  circuits: Circuits;
  events: EventLog;
}

/**
 * Reads the routing provider's model list and makes it the tenant's synced set: new models added,
 * changed prices or context lengths updated, models gone from the list removed. Each model's tier
 * comes from its prompt price (`tierForPrice`) unless the tenant overrides it. The call is guarded
 * by the `sync:<origin>` circuit.
 */
export class PriceSync {
  constructor(private readonly d: PriceSyncDeps) {}

  async run(tenant: string, signal?: AbortSignal): Promise<SyncReport> {
    const origin = this.d.http.origin(tenant);
    const circuit = this.d.circuits.get(tenant, 'sync', origin);
    if (!circuit.tryPass()) {
      const view = circuit.view();
      throw errors.circuit_open({ circuit: view.name, nextProbeAt: view.nextProbeAt ?? '' });
    }
    let listed: unknown[];
    try {
      listed = await this.fetchList(tenant, signal);
      circuit.success();
    } catch (err) {
      const reason = redact((err as Error).message, [this.d.config.apiKey(tenant)]);
      circuit.failure(reason);
      await this.d.events.append('models.sync_failed', { source: origin, reason }, { tenant });
      throw errors.sync_failed({ reason }, { cause: err });
    }
    const report = await this.apply(tenant, listed, origin);
    await this.d.events.append('models.synced', report, { tenant });
    return report;
  }

  private async fetchList(tenant: string, signal?: AbortSignal): Promise<unknown[]> {
    const res = await this.d.http.request(tenant, '/models', signal ? { signal } : {});
    if (res.status !== 200) {
      const text = (await res.text()).slice(0, 200);
      throw new Error(`GET /models answered ${res.status}${text ? `: ${text}` : ''}`);
    }
    let body: unknown;
    try {
      body = await res.json();
    } catch {
      throw new Error('GET /models answered a body that is not JSON');
    }
    const parsed = modelList.safeParse(body);
    if (!parsed.success) throw new Error('GET /models answered JSON without a data array');
    return parsed.data.data;
  }

  private async apply(tenant: string, listed: unknown[], origin: string): Promise<SyncReport> {
    const overrides = this.d.config.tierOverrides(tenant);
    const before = new Map(this.d.catalog.synced(tenant).map((m) => [m.id, m]));
    const now = new Date().toISOString();
    const next: CatalogModel[] = [];
    const changes: SyncReport['changes'] = { added: [], updated: [], removed: [] };
    let unchanged = 0;
    let skipped = 0;
    const seen = new Set<string>();
    for (const raw of listed) {
      const entry = listedModel.safeParse(raw);
      if (!entry.success || seen.has(entry.data.id)) {
        skipped += 1;
        continue;
      }
      const m = entry.data;
      const prompt = perMillion(m.pricing?.prompt);
      const completion = perMillion(m.pricing?.completion);
      // OpenRouter lists routers with price "-1" (decided per request): no price, no tier.
      if (prompt === undefined || completion === undefined) {
        skipped += 1;
        continue;
      }
      seen.add(m.id);
      const tier = overrides[m.id] ?? tierForPrice(prompt);
      const info = tierInfo(tier)!;
      const candidate: CatalogModel = {
        id: m.id,
        name: m.name ?? m.id,
        provider: providerOf(m.id),
        tier,
        category: info.category,
        contextLength: m.context_length ?? 0,
        pricing: { promptPer1M: prompt, completionPer1M: completion },
        latencyMs: info.latencyMs,
        benchmarks: {},
        custom: false,
        source: 'sync',
        updatedAt: now,
      };
      const old = before.get(m.id);
      if (!old) changes.added.push(m.id);
      else if (!same(old, candidate)) changes.updated.push(m.id);
      else {
        unchanged += 1;
        candidate.updatedAt = old.updatedAt;
        candidate.benchmarks = old.benchmarks;
      }
      next.push(candidate);
    }
    for (const id of before.keys()) if (!seen.has(id)) changes.removed.push(id);
    await this.d.catalog.replaceSynced(tenant, this.d.store, next);
    return {
      added: changes.added.length,
      updated: changes.updated.length,
      removed: changes.removed.length,
      unchanged,
      skipped,
      changes,
      source: origin,
      syncedAt: now,
    };
  }
}
