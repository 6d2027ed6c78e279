import { randomUUID } from 'node:crypto';
import { QueryExpanders } from '../search/query-expansion.js';
import type { Logger } from 'pino';
import type { KernelRunner } from 'tessera-runtime/kernels';
import { ConflictError, InputError, NotFoundError, type StoreNamespace } from 'tessera-runtime/plugin';
import { CORPUS_LSA_V1 } from '../embedders/corpus-lsa.js';
import { directReindex, serialGraphBuilds, type GraphBuildRunner, type ReindexRunner } from './runners.js';
import { EmbedderCatalog } from '../embedders/embedder.js';
import { mergeMappings, mergeSettings, validateIndexName, type CreateIndexInput, type PatchIndexInput } from './mappings.js';
import { checkRecordFormat, INDEX_RECORD_FORMAT, openDatabases, type IndexDatabases, type IndexRecord, type WriteChange } from './index-record.js';
import { hnswSettings } from './loaded-segment.js';
import { SearchIndex } from './search-index.js';
import type { SearchEvents } from '../service.js';

/**
 * Format of the search plugin's stored data. 2: the index catalogue is keyed by [tenant, name] and
 * each record names its tenant (1, unrecorded, keyed it by name alone: it becomes tenant `default`'s).
 */
export const SEARCH_DATA_FORMAT = 2;

/** The seed's IndexDefinition, with the statistics `GET /v1/indexes` promises. */
export interface IndexDefinition {
  name: string;
  mappings: IndexRecord['mappings'];
  settings: IndexRecord['settings'];
  docCount: number;
  createdAt: string;
  updatedAt: string;
  stats: {
    segments: number;
    deletedDocs: number;
    fields: number;
    /** With `vectorIndex: hnsw`: segments whose graph is ready, and the build's progress in vectors. */
    vectorIndex?: { type: 'hnsw'; segments: number; ready: number; failed: number; inserted: number; total: number };
    /** With the builtin model corpus-lsa-v1: whether its term model is trained, and from what. */
    embedder?: { model: string; trained: boolean; docs?: number; terms?: number; rank?: number; trainedAt?: string };
  };
}

export class IndexNotFoundError extends NotFoundError {
  constructor(name: string) {
    super('index_not_found', `Index "${name}" does not exist.`, { details: { index: name } });
  }
}

export class DocumentNotFoundError extends NotFoundError {
  constructor(index: string, id: string) {
    super('document_not_found', `Index "${index}" has no document "${id}".`, { details: { index, id } });
  }
}

export type { SearchIndex };

const keyOf = (tenant: string, name: string): string => `${tenant}\u0000${name}`;

/**
 * Every index of the deployment: the catalogue in LMDB and the live indexes over it. An index
 * belongs to a tenant; every call names the tenant, and another tenant's index does not exist.
 */
export class SearchEngine {
  private readonly indexes = new Map<string, SearchIndex>();
  private readonly listeners = new Map<keyof SearchEvents, Set<(payload: any) => void>>();
  private readonly dbs: IndexDatabases;
  private readonly store: StoreNamespace;
  private readonly kernels: () => KernelRunner;
  private readonly log: Logger;
  /** Graph builds of every index: the plugin's jobs, as many at once as the kernel pool has threads. */
  private readonly graphBuilds: GraphBuildRunner;
  private readonly embedders: EmbedderCatalog;
  private readonly reindexes: ReindexRunner;
  /** More of an index's `stats` (the plugin adds visual extraction's progress). */
  /** The query expanders other plugins registered (`expand` on a search; search/query-expansion.ts). */
  readonly expanders = new QueryExpanders();
  indexStats: (tenant: string, name: string, index: SearchIndex, options: { sizes: boolean }) => Record<string, unknown> = () => ({});

  on<K extends keyof SearchEvents>(event: K, handler: (payload: SearchEvents[K]) => void): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(handler);
    return () => set!.delete(handler);
  }

  private emit<K extends keyof SearchEvents>(event: K, payload: SearchEvents[K]): void {
    for (const handler of this.listeners.get(event) ?? []) {
      try {
        handler(payload);
      } catch (err) {
        this.log.error({ err, event }, 'search event handler failed');
      }
    }
  }

  constructor(deps: {
    store: StoreNamespace;
    kernels: () => KernelRunner;
    log: Logger;
    graphBuilds?: GraphBuildRunner;
    embedders?: EmbedderCatalog;
    reindexes?: ReindexRunner;
  }) {
    this.store = deps.store;
    this.reindexes = deps.reindexes ?? directReindex;
    this.embedders = deps.embedders ?? new EmbedderCatalog();
    this.graphBuilds = deps.graphBuilds ?? serialGraphBuilds();
    this.kernels = deps.kernels;
    this.log = deps.log;
    this.dbs = openDatabases(deps.store);
  }

  /**
   * Bring a store written before tenancy to the current format: catalogue records keyed by name
   * alone become tenant `default`'s, in one transaction, recorded only once it committed.
   */
  async migrate(): Promise<void> {
    // Stores from before tenancy recorded no format: they are format 1.
    await this.store.format(SEARCH_DATA_FORMAT, () => this.moveLegacyIndexes(), { unversioned: 1 });
  }

  private async moveLegacyIndexes(): Promise<void> {
    const legacy = [...this.dbs.indexes.getRange()].filter(({ key }) => !Array.isArray(key));
    if (legacy.length > 0) {
      await this.store.transaction(() => {
        for (const { key, value } of legacy) {
          void this.dbs.indexes.remove(key as unknown as [string, string]);
          void this.dbs.indexes.put(['default', value.name], { ...value, tenant: 'default' });
        }
      });
      this.log.info({ indexes: legacy.length }, 'search catalogue migrated: indexes stored before tenancy belong to tenant "default"');
    }
  }

  /** Open every stored index and load its segments into kernel memory. */
  async load(): Promise<void> {
    await this.migrate();
    for (const { value } of this.dbs.indexes.getRange()) {
      // A record of a newer build is refused here, before any of its segments is read.
      checkRecordFormat(value);
      const index = this.open({ ...value, format: INDEX_RECORD_FORMAT });
      index.load();
      this.indexes.set(keyOf(value.tenant, value.name), index);
    }
    this.log.info({ indexes: this.indexes.size }, 'search indexes loaded');
    const inline = [...this.indexes.values()].filter((i) => typeof i.record.settings.embedder === 'object' && i.record.settings.embedder.type === 'openai');
    if (inline.length > 0) {
      this.log.warn(
        { indexes: inline.map((i) => `${i.record.tenant}/${i.name}`) },
        'indexes call an embedding endpoint written in their own settings; it keeps working, but define it in plugins.search.options.embedders and PATCH settings.embedder to its name',
      );
    }
    const missing = [...this.indexes.values()].filter((i) => typeof i.record.settings.embedder === 'string' && !this.embedders.has(i.record.settings.embedder));
    if (missing.length > 0) {
      this.log.warn(
        { indexes: missing.map((i) => `${i.record.tenant}/${i.name}:${String(i.record.settings.embedder)}`) },
        'indexes name embedders this manifest does not define; embedding fails for them until it does',
      );
    }
  }

  private open(record: IndexRecord): SearchIndex {
    const index: SearchIndex = new SearchIndex(record, {
      dbs: this.dbs,
      store: this.store,
      kernels: this.kernels,
      log: this.log,
      // Every committed write is an event: merges, autocomplete, visual extraction and the
      // plugins on SEARCH_SERVICE (graph, console, ...) subscribe to it.
      onWrite: (index, change: WriteChange) =>
        this.emit('documents.written', { tenant: index.record.tenant, index: index.name, upserted: change.upserted, deleted: change.deleted }),
      graphBuilds: this.graphBuilds,
      embedders: this.embedders,
    });
    index.extraStats = (options) => this.indexStats(index.record.tenant, index.name, index, options);
    return index;
  }

  /** The tenant's indexes, by name (`sizes`: with their byte sizes, see describe). */
  list(tenant: string, options: { sizes?: boolean } = {}): IndexDefinition[] {
    return [...this.indexes.values()]
      .filter((i) => i.record.tenant === tenant)
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((index) => describe(index, options));
  }

  /** Every index of every tenant (merges, metrics). */
  all(): SearchIndex[] {
    return [...this.indexes.values()];
  }

  get(tenant: string, name: string): SearchIndex {
    const index = this.indexes.get(keyOf(tenant, name));
    if (!index) throw new IndexNotFoundError(name);
    return index;
  }

  has(tenant: string, name: string): boolean {
    return this.indexes.has(keyOf(tenant, name));
  }

  async create(tenant: string, input: CreateIndexInput): Promise<IndexDefinition> {
    const name = validateIndexName(input.name);
    input = { ...input, settings: this.embedderDefaults(input.settings) };
    checkAutoEmbed(input.settings);
    this.embedders.check(input.settings);
    const key = keyOf(tenant, name);
    if (this.indexes.has(key)) throw new ConflictError('index_exists', `Index "${name}" already exists.`, { details: { index: name } });
    const now = new Date().toISOString();
    const record: IndexRecord = {
      tenant,
      name,
      uuid: randomUUID(),
      mappings: input.mappings,
      settings: input.settings,
      createdAt: now,
      updatedAt: now,
      nextSegment: 1,
      format: INDEX_RECORD_FORMAT,
    };
    // Claim the name before the write so two concurrent creates cannot both succeed.
    const index = this.open(record);
    this.indexes.set(key, index);
    try {
      await this.dbs.indexes.put([tenant, name], record);
    } catch (err) {
      this.indexes.delete(key);
      throw err;
    }
    this.emit('index.created', { tenant, index: name });
    return describe(index);
  }

  /** Change settings and add mappings; a change that alters analysis re-indexes the documents. */
  async patch(tenant: string, name: string, input: PatchIndexInput): Promise<{ index: IndexDefinition; reindexed: boolean }> {
    const index = this.get(tenant, name);
    const merged = input.mappings ? mergeMappings(index.record.mappings, input.mappings) : undefined;
    const settings = input.settings ? mergeSettings(index.record.settings, input.settings) : undefined;
    if (settings) {
      // Filled when this PATCH turns autoEmbed on or changes the embedder. A metric filled in
      // changes nothing (vectors without one were compared by cosine); a dimension does.
      if (settings.changed.includes('autoEmbed') || settings.changed.includes('embedder')) {
        const filled = this.embedderDefaults(settings.settings);
        if (filled.vectorDimensions !== settings.settings.vectorDimensions) settings.changed.push('vectorDimensions');
        settings.settings = filled;
      }
      checkAutoEmbed(settings.settings);
    }
    // An index stored with an inline endpoint keeps it through PATCHes of other settings.
    if (
      settings &&
      (input.settings!.embedder !== undefined || (input.settings!.vectorDimensions !== undefined && typeof settings.settings.embedder === 'string'))
    ) {
      this.embedders.check(settings.settings);
    }
    // Another embedder (or builtin model) makes vectors that the stored ones cannot be compared with.
    const reembed = (k: string): boolean => k === 'embedder' && settings!.settings.autoEmbed;
    const analysisChanged =
      (merged?.needsReindex ?? false) ||
      (settings?.changed.some((k) => k === 'dynamic' || k === 'autoEmbed' || k === 'vectorDimensions' || k === 'vectorQuantization' || reembed(k)) ?? false);
    const record: IndexRecord = {
      ...index.record,
      mappings: merged?.mappings ?? index.record.mappings,
      settings: settings?.settings ?? index.record.settings,
      updatedAt: new Date().toISOString(),
    };
    // New mapped fields apply to documents already stored too, so they are re-read as well.
    const reindex = analysisChanged || (merged?.added.length ?? 0) > 0;
    const reindexed = reindex && index.docCount > 0;
    if (reindexed) {
      // Built under the new record and committed with it, or refused as a whole (422
      // reindex_failed, 502 embedding_failed): until then, and after a refusal, the index serves as before.
      await this.reindexes({ tenant, index: name, docs: index.docCount }, (progress) => index.reindex(record, progress));
    } else {
      await this.dbs.indexes.put([tenant, name], { ...record, nextSegment: index.record.nextSegment });
      index.record = { ...record, nextSegment: index.record.nextSegment };
      // Graphs depend on the metric and their own parameters only; a re-index builds new ones anyway.
      if (settings?.changed.some((k) => k === 'vectorIndex' || k === 'vectorMetric')) await index.resetGraphs();
    }
    this.emit('index.changed', { tenant, index: name, reindexed });
    return { index: describe(index), reindexed };
  }

  /** Train a corpus-lsa-v1 index's embedder anew from its documents and re-embed them all. */
  async retrainEmbedder(tenant: string, name: string): Promise<IndexDefinition> {
    const index = this.get(tenant, name);
    await index.retrainEmbedder();
    this.emit('index.changed', { tenant, index: name, reindexed: true });
    return describe(index);
  }

  /**
   * autoEmbed without `vectorDimensions` embeds into the embedder's own dimension when it is known
   * (the built-in ones', a manifest embedder's `dimensions`), and without `vectorMetric` compares
   * by cosine, the metric embedders are made for; the filled values are stored and shown.
   */
  private embedderDefaults(settings: IndexRecord['settings']): IndexRecord['settings'] {
    if (!settings.autoEmbed) return settings;
    const dims = settings.vectorDimensions ?? this.embedders.dimensionsOf(settings);
    return {
      ...settings,
      ...(dims !== undefined ? { vectorDimensions: dims } : {}),
      vectorMetric: settings.vectorMetric ?? 'cosine',
    };
  }

  async delete(tenant: string, name: string): Promise<void> {
    const index = this.get(tenant, name);
    this.indexes.delete(keyOf(tenant, name));
    await index.drop();
    this.emit('index.dropped', { tenant, index: name });
  }

  close(): void {
    for (const index of this.indexes.values()) index.close();
    this.indexes.clear();
  }
}

/** autoEmbed needs to know the vector size to embed into. */
function checkAutoEmbed(settings: IndexRecord['settings']): void {
  if (settings.autoEmbed && settings.vectorDimensions === undefined) {
    throw new InputError(
      'validation_failed',
      'settings.autoEmbed needs settings.vectorDimensions (the size of the vectors to embed into, e.g. 384): this embedder does not declare its dimensions (set `dimensions` on it in plugins.search.options.embedders, or give vectorDimensions).',
      {
        details: { issues: [{ path: 'settings.vectorDimensions', message: 'required when autoEmbed is true' }] },
      },
    );
  }
}

/**
 * An index as the API answers it. `sizes` (default true, the HTTP answers) adds `stats.bytes` and
 * `stats.sizes`, measured by walking the index's key ranges (index-size.ts); the search service's
 * `get`/`indexes`, which other plugins call on their write paths (bulk, per batch), leave it out.
 */
export function describe(index: SearchIndex, options: { sizes?: boolean } = {}): IndexDefinition {
  const r = index.record;
  let deleted = 0;
  for (const s of index.segments) deleted += s.deletedCount;
  return {
    name: r.name,
    mappings: r.mappings,
    settings: r.settings,
    docCount: index.docCount,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    stats: {
      segments: index.segments.length,
      deletedDocs: deleted,
      fields: Object.keys(r.mappings).length,
      ...graphStats(index),
      ...embedderStats(index),
      ...index.extraStats({ sizes: options.sizes ?? true }),
    },
  };
}

function embedderStats(index: SearchIndex): Pick<IndexDefinition['stats'], 'embedder'> {
  if (!index.trainsEmbedder()) return {};
  const m = index.termModel;
  const model = CORPUS_LSA_V1;
  return { embedder: m ? { model, trained: true, docs: m.docCount, terms: m.terms.size, rank: m.rank, trainedAt: m.trainedAt } : { model, trained: false } };
}

function graphStats(index: SearchIndex): Pick<IndexDefinition['stats'], 'vectorIndex'> {
  if (!hnswSettings(index.record.settings)) return {};
  const stats = { type: 'hnsw' as const, segments: 0, ready: 0, failed: 0, inserted: 0, total: 0 };
  for (const seg of index.segments) {
    if (!seg.graph) continue;
    stats.segments++;
    if (seg.graph.status === 'ready') stats.ready++;
    if (seg.graph.status === 'failed') stats.failed++;
    stats.inserted += seg.graph.inserted;
    stats.total += seg.graph.total;
  }
  return { vectorIndex: stats };
}
