import type { StoreNamespace } from 'tessera-runtime/plugin';
import type { SearchService } from '../search/index.js';
import type { CachedAnswer, CacheKey, SemanticCacheLike } from './cache-port.js';
import type { ChatResult } from './llm-provider.js';

/** The search index (per tenant) that holds the cached prompts' embeddings. */
export const cacheIndexName = 'agent-semantic-cache';
const dimensions = 256;

interface Entry {
  id: string;
  tier: number;
  paramsKey: string;
  prompt: string;
  modelId: string;
  result: ChatResult;
  createdAt: string;
}

export interface CacheStats {
  entries: number;
  hits: number;
  exactHits: number;
  semanticHits: number;
  misses: number;
  hitRate: number;
  tokensSaved: number;
  dollarsSaved: number;
}

type Counters = Omit<CacheStats, 'entries' | 'hitRate' | 'hits'>;
const zero = (): Counters => ({ exactHits: 0, semanticHits: 0, misses: 0, tokensSaved: 0, dollarsSaved: 0 });

/**
 * Completions cached in two layers: an exact layer (LMDB, keyed by tier, parameters and the
 * normalised prompt) checked first, then a semantic layer: the prompt's embedding in a search
 * index of the tenant (Tessera's own embedder and vector kernels, through the search plugin's
 * service), searched among entries of the same tier and parameters; the nearest one counts when
 * its cosine similarity reaches the threshold.
 */
export class SemanticCache implements SemanticCacheLike {
  private readonly entries;
  private readonly statsDb;
  private readonly counters = new Map<string, Counters>();
  /** Per tenant: the chain of writes not yet applied, and the entries they carry (for the exact layer). */
  private readonly pending = new Map<string, Promise<void>>();
  private readonly unwritten = new Map<string, Entry>();

  constructor(
    store: StoreNamespace,
    private readonly search: SearchService,
    private readonly threshold: () => number,
  ) {
    this.entries = store.db('cache-entries');
    this.statsDb = store.db('cache-stats');
  }

  async lookup(tenant: string, key: CacheKey): Promise<{ kind: 'exact' | 'semantic'; answer: CachedAnswer } | undefined> {
    const exact = this.unwritten.get(`${tenant}\u0000${key.exactKey}`) ?? (this.entries.get([tenant, key.exactKey]) as Entry | undefined);
    if (exact) return { kind: 'exact', answer: { modelId: exact.modelId, result: exact.result, similarity: 1 } };
    await this.settled(tenant);
    if (!this.search.get(tenant, cacheIndexName)) return undefined;
    const found = await this.search.search(tenant, cacheIndexName, {
      q: key.prompt,
      mode: 'semantic',
      size: 1,
      filter: { and: [{ eq: { paramsKey: key.paramsKey } }, { eq: { tier: String(key.tier) } }] },
    });
    const best = found.hits[0];
    if (!best || best.score < this.threshold()) return undefined;
    const entry = this.entries.get([tenant, best.id]) as Entry | undefined;
    if (!entry) return undefined;
    return { kind: 'semantic', answer: { modelId: entry.modelId, result: entry.result, similarity: best.score } };
  }

  put(tenant: string, key: CacheKey, modelId: string, result: ChatResult): void {
    const entry: Entry = {
      id: key.exactKey,
      tier: key.tier,
      paramsKey: key.paramsKey,
      prompt: key.prompt,
      modelId,
      result,
      createdAt: new Date().toISOString(),
    };
    const memoryKey = `${tenant}\u0000${entry.id}`;
    this.unwritten.set(memoryKey, entry);
    this.enqueue(tenant, async () => {
      try {
        await this.entries.put([tenant, entry.id], entry);
        await this.ensureIndex(tenant);
        await this.search.upsert(tenant, cacheIndexName, [
          { id: entry.id, prompt: entry.prompt, paramsKey: entry.paramsKey, tier: String(entry.tier), modelId },
        ]);
      } finally {
        if (this.unwritten.get(memoryKey) === entry) this.unwritten.delete(memoryKey);
      }
    });
  }

  /** Resolves once every queued write of every tenant is applied (before the store closes). */
  async drain(): Promise<void> {
    while (this.pending.size > 0) await Promise.all(this.pending.values());
  }

  /** Resolves once every write queued for the tenant so far is applied. */
  settled(tenant: string): Promise<void> {
    return this.pending.get(tenant) ?? Promise.resolve();
  }

  private enqueue(tenant: string, write: () => Promise<void>): void {
    const next = this.settled(tenant)
      .then(write)
      .catch(() => {});
    this.pending.set(tenant, next);
    void next.then(() => {
      if (this.pending.get(tenant) === next) this.pending.delete(tenant);
    });
  }

  record(tenant: string, outcome: { kind: 'exact' | 'semantic' | 'miss'; tokens?: number; dollars?: number }): void {
    const c = this.countersOf(tenant);
    if (outcome.kind === 'miss') c.misses += 1;
    else {
      if (outcome.kind === 'exact') c.exactHits += 1;
      else c.semanticHits += 1;
      c.tokensSaved += outcome.tokens ?? 0;
      c.dollarsSaved += outcome.dollars ?? 0;
    }
    this.statsDb.put(tenant, { ...c }).catch(() => {});
  }

  async stats(tenant: string): Promise<CacheStats> {
    await this.settled(tenant);
    const c = this.countersOf(tenant);
    const hits = c.exactHits + c.semanticHits;
    const total = hits + c.misses;
    return {
      entries: this.entries.getKeysCount({ start: [tenant], end: [tenant, '\uffff'] }),
      hits,
      exactHits: c.exactHits,
      semanticHits: c.semanticHits,
      misses: c.misses,
      hitRate: total === 0 ? 0 : hits / total,
      tokensSaved: c.tokensSaved,
      dollarsSaved: Math.round(c.dollarsSaved * 1e9) / 1e9,
    };
  }

  async purgeModel(tenant: string, modelId: string): Promise<number> {
    await this.settled(tenant);
    const ids: string[] = [];
    for (const { value } of this.entries.getRange({ start: [tenant], end: [tenant, '\uffff'] }))
      if ((value as Entry).modelId === modelId) ids.push((value as Entry).id);
    for (const id of ids) await this.entries.remove([tenant, id]);
    if (ids.length > 0 && this.search.get(tenant, cacheIndexName)) await this.search.delete(tenant, cacheIndexName, ids);
    return ids.length;
  }

  /** Flushes the tenant's entries from the store and the vector index; the statistics stay. */
  async clear(tenant: string): Promise<number> {
    await this.settled(tenant);
    const keys = [...this.entries.getKeys({ start: [tenant], end: [tenant, '\uffff'] })];
    for (const k of keys) await this.entries.remove(k);
    await this.search.drop(tenant, cacheIndexName);
    return keys.length;
  }

  private countersOf(tenant: string): Counters {
    let c = this.counters.get(tenant);
    if (!c) {
      c = { ...zero(), ...(this.statsDb.get(tenant) as Counters | undefined) };
      this.counters.set(tenant, c);
    }
    return c;
  }

  private async ensureIndex(tenant: string): Promise<void> {
    if (this.search.get(tenant, cacheIndexName)) return;
    await this.search.ensure(tenant, {
      name: cacheIndexName,
      mappings: { prompt: { type: 'text' }, paramsKey: { type: 'keyword' }, tier: { type: 'keyword' }, modelId: { type: 'keyword' } },
      settings: { vectorDimensions: dimensions, autoEmbed: true, embedder: { type: 'builtin', model: 'hashed-ngrams-v2' } },
    });
  }
}
