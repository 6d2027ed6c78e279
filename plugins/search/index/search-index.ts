import { prepareRows } from './vector-range.js';
import { randomBytes } from 'node:crypto';
import type { Database } from 'lmdb' with { 'resolution-mode': 'require' };
import type { Logger } from 'pino';
import type { KernelRunner, DocLengthsBlock, GeoBlock, HnswGraphBlock, Metric, PostingsBlock, VectorBlock } from 'tessera-runtime/kernels';
import { GeoGrid } from './geo-grid.js';
import { InputError, TesseraError, type StoreNamespace } from 'tessera-runtime/plugin';
import { getAnalyzer, type Analyzer } from '../analysis/analyzer.js';
import { add, andNotInPlace, emptySet, has, members, popcount, type Bitset } from './bitset.js';
import { evaluateFilter, type FilterNode } from '../query/filter.js';
import { segmentColumns } from './segment-columns.js';
import { prepareDocument } from './document-validation.js';
import type { FieldMapping, IndexSettings } from './mappings.js';
import { CORPUS_LSA_V1, decodeCorpusLsa, encodeCorpusLsa, trainCorpusLsa, type CorpusLsaModel } from '../embedders/corpus-lsa.js';
import { EmbedderCatalog, EmbedderError, embedderFor } from '../embedders/embedder.js';
import { embeddingCorpus, type EmbeddingCorpus } from '../embedders/embedding-corpus.js';
import { collectionStatistics, type CollectionStatistics } from './collection-statistics.js';
import { buildSegment, decodeSegment, encodeSegment, type IndexableDocument, type SegmentData } from './segment.js';
import { mergeSegmentData } from './segment-merge.js';
import { serialGraphBuilds, type GraphBuildRunner } from './background.js';

/** What is stored per index. `uuid` keys its data, so a deleted and re-created name never sees old data. */
export interface IndexRecord {
  /** The tenant that owns the index; its name is unique within the tenant. */
  tenant: string;
  name: string;
  uuid: string;
  mappings: Record<string, FieldMapping>;
  settings: IndexSettings;
  createdAt: string;
  updatedAt: string;
  nextSegment: number;
}

/** Where a document's live version sits. */
interface Location {
  seg: number;
  ord: number;
}

/**
 * A segment's HNSW graph. One object per segment, shared by the copies a tombstone update makes,
 * so a build finishing later is seen by whichever copy a search holds.
 */
export interface SegmentGraph {
  status: 'building' | 'ready' | 'failed' | 'released';
  block?: HnswGraphBlock;
  /** Nodes linked so far, of `total`. */
  inserted: number;
  total: number;
  readonly abort: AbortController;
  error?: string;
}

export type HnswSettings = Extract<IndexSettings['vectorIndex'], { type: 'hnsw' }>;

/** The index's HNSW settings, or undefined when it scans (records stored before the setting mean flat). */
export function hnswSettings(settings: IndexSettings): HnswSettings | undefined {
  const v = settings.vectorIndex as IndexSettings['vectorIndex'] | undefined;
  return v?.type === 'hnsw' ? v : undefined;
}

export const KERNEL_METRICS: Record<string, Metric> = { cosine: 'cosine', dot_product: 'dot', euclidean: 'euclidean' };

/** A segment as searched: its data, its tombstones, and its text fields in kernel memory. */
export interface LoadedSegment {
  id: number;
  data: SegmentData;
  deleted: Bitset;
  deletedCount: number;
  fields: Record<string, { postings: PostingsBlock; lengths: DocLengthsBlock }>;
  vectors?: VectorBlock;
  /** Present when the index uses `vectorIndex: hnsw` and the segment has vectors. */
  graph?: SegmentGraph;
  geo: Record<string, { block: GeoBlock; grid: GeoGrid }>;
}

export interface IndexDatabases {
  /** The catalogue, keyed by [tenant, name]. */
  indexes: Database<IndexRecord, [string, string]>;
  /** Sources as JSON bytes: JSON.stringify is native, and most readers want JSON anyway. */
  docs: Database<Buffer, [string, string]>;
  segments: Database<Record<string, unknown>, [string, number]>;
  tombstones: Database<Buffer, [string, number]>;
  /** HNSW graph bytes per segment, written when a build finishes (a missing one is rebuilt). */
  graphs: Database<Buffer, [string, number]>;
  /** The built-in embedder's trained term model per index uuid (corpus-lsa.ts), written with the vectors it made. */
  embedderModels: Database<Buffer, string>;
}

/** What a committed write changed, for the engine's `documents.written` event. */
export interface WriteChange {
  upserted: string[];
  deleted: string[];
}

export interface UpsertResult {
  indexed: number;
  ids: string[];
  errors: Array<{ position: number; id?: string; code: string; message: string }>;
}

export function openDatabases(store: StoreNamespace): IndexDatabases {
  return {
    indexes: store.db<IndexRecord, [string, string]>('indexes'),
    docs: store.db<Buffer, [string, string]>('docs', { encoding: 'binary' }),
    segments: store.db<Record<string, unknown>, [string, number]>('segments'),
    tombstones: store.db<Buffer, [string, number]>('tombstones'),
    graphs: store.db<Buffer, [string, number]>('graphs', { encoding: 'binary' }),
    embedderModels: store.db<Buffer, string>('embedderModels', { encoding: 'binary' }),
  };
}

/**
 * One live index. Writes are serialised (one at a time per index) and each is one LMDB
 * transaction: the new segment, the tombstones of replaced documents and the stored sources commit
 * together, so a write acknowledged to a client is on disk and a crash never leaves half of one.
 * Searches read an immutable array of segments that a write replaces when it has committed, so
 * reads are never blocked by ingestion.
 */
/** Where a re-index is: reading sources, training the embedder, embedding, building the segment. */
export type ReindexProgress = (phase: 'read' | 'train' | 'embed' | 'build', done: number, total: number) => void;

/** Ids listed in the details of a refused re-index. */
const MAX_LISTED_IDS = 100;

/** A settings or mappings change that some stored documents do not fit: nothing is changed. */
export class ReindexRefusedError extends TesseraError {
  constructor(index: string, invalid: ReadonlyArray<{ id: string; code: string; message: string }>) {
    const first = invalid[0]!;
    super(
      'reindex_failed',
      422,
      `Index "${index}" is unchanged: ${invalid.length} stored document${invalid.length === 1 ? ' does' : 's do'} not fit the new mappings or settings (first, "${first.id}": ${first.message}).`,
      { details: { failed: invalid.length, documents: invalid.slice(0, MAX_LISTED_IDS) } },
    );
    this.name = 'ReindexRefusedError';
  }
}

export class SearchIndex {
  record: IndexRecord;
  segments: readonly LoadedSegment[] = [];
  /** Statistics the plugin adds to `describe` (set by the engine). */
  extraStats: () => Record<string, unknown> = () => ({});
  /**
   * id -> live location, rebuilt at load from the ids every segment already holds: upserts find
   * the version they replace without a read from the store, and merges rewrite no location rows.
   */
  private readonly locations = new Map<string, Location>();
  private readonly dbs: IndexDatabases;
  private readonly store: StoreNamespace;
  private readonly kernels: () => KernelRunner;
  private readonly log: Logger;
  private writing: Promise<unknown> = Promise.resolve();
  private analyzerCache = new Map<string, Analyzer>();
  /** The corpus-lsa-v1 term model that made the stored vectors, if the index has been trained. */
  termModel?: CorpusLsaModel;
  private readonly onWrite: (index: SearchIndex, change: WriteChange) => void;
  /** Where graph builds run: the plugin's jobs (one per kernel pool thread), in the order queued. */
  private readonly graphBuilds: GraphBuildRunner;
  /** The deployment's remote embedders, which `settings.embedder` names. */
  readonly embedders: EmbedderCatalog;
  /** This index's builds not yet finished. */
  private readonly pendingBuilds = new Set<Promise<void>>();
  private statisticsOf?: readonly LoadedSegment[];
  private collection?: CollectionStatistics;

  constructor(
    record: IndexRecord,
    deps: {
      dbs: IndexDatabases;
      store: StoreNamespace;
      kernels: () => KernelRunner;
      log: Logger;
      onWrite?: (index: SearchIndex, change: WriteChange) => void;
      graphBuilds?: GraphBuildRunner;
      embedders?: EmbedderCatalog;
    },
  ) {
    this.record = record;
    this.graphBuilds = deps.graphBuilds ?? serialGraphBuilds();
    this.embedders = deps.embedders ?? new EmbedderCatalog();
    this.onWrite = deps.onWrite ?? (() => undefined);
    this.dbs = deps.dbs;
    this.store = deps.store;
    this.kernels = deps.kernels;
    this.log = deps.log;
  }

  get name(): string {
    return this.record.name;
  }

  get docCount(): number {
    let n = 0;
    for (const s of this.segments) n += s.data.docCount - s.deletedCount;
    return n;
  }

  analyzerFor(field: string, record: IndexRecord = this.record): Analyzer {
    const mapping = record.mappings[field];
    const name = mapping?.analyzer ?? 'standard';
    let analyzer = this.analyzerCache.get(name);
    if (!analyzer) this.analyzerCache.set(name, (analyzer = getAnalyzer(name)));
    return analyzer;
  }

  /** Text fields that are indexed, in mapping order. */
  textFields(record: IndexRecord = this.record): string[] {
    return Object.entries(record.mappings)
      .filter(([, m]) => m.type === 'text' && m.index !== false)
      .map(([f]) => f);
  }

  /** The analyzers and term statistics the built-in embedder reads, as of the current segments. */
  embeddingCorpus(): EmbeddingCorpus {
    const corpus = this.termStatistics();
    return this.termModel && this.trainsEmbedder() ? { ...corpus, model: this.termModel } : corpus;
  }

  private termStatistics(record: IndexRecord = this.record): EmbeddingCorpus {
    return embeddingCorpus(
      this.statistics(),
      this.textFields(record).map((field) => ({ field, analyzer: this.analyzerFor(field, record) })),
    );
  }

  /** The collection statistics of the current segments (BM25 and the embedders), made once per segment set. */
  statistics(): CollectionStatistics {
    if (this.statisticsOf !== this.segments) {
      this.statisticsOf = this.segments;
      this.collection = collectionStatistics(this.segments);
    }
    return this.collection!;
  }

  /** Whether the index embeds with a model trained from its documents (corpus-lsa-v1). */
  trainsEmbedder(record: IndexRecord = this.record): boolean {
    const e = record.settings.embedder;
    return record.settings.autoEmbed && typeof e === 'object' && e.type === 'builtin' && e.model === CORPUS_LSA_V1;
  }

  /**
   * Train the embedder's term model anew from the live documents and re-embed every document
   * with it, in one transaction with the new segment (a re-index). For corpus-lsa-v1 only.
   */
  async retrainEmbedder(): Promise<void> {
    if (!this.trainsEmbedder()) {
      throw new InputError(
        'validation_failed',
        `Index "${this.record.name}" does not embed with a trained model; set settings.autoEmbed and settings.embedder {"type": "builtin", "model": "${CORPUS_LSA_V1}"}.`,
        {
          details: { issues: [{ path: 'settings.embedder.model', message: `must be ${CORPUS_LSA_V1} to train` }] },
        },
      );
    }
    await this.reindex();
  }

  /** Load every stored segment and its tombstones (at start-up). */
  load(): void {
    const segments: LoadedSegment[] = [];
    for (const { key, value } of this.dbs.segments.getRange({ start: [this.record.uuid, 0], end: [this.record.uuid, Number.MAX_SAFE_INTEGER] })) {
      const id = key[1];
      const data = decodeSegment(value);
      const stored = this.dbs.tombstones.get([this.record.uuid, id]);
      const deleted = stored ? new Uint32Array(stored.buffer.slice(stored.byteOffset, stored.byteOffset + stored.byteLength)) : emptySet(data.docCount);
      segments.push(this.toLoaded(id, data, deleted));
      for (let ord = 0; ord < data.docCount; ord++) if (!has(deleted, ord)) this.locations.set(data.ids[ord]!, { seg: id, ord });
    }
    this.segments = segments;
    const model = this.dbs.embedderModels.get(this.record.uuid);
    this.termModel = model ? decodeCorpusLsa(model) : undefined;
  }

  /** `graphSeed`: a merge's largest segment's graph, over the new segment's first rows (see mergeSegments). */
  private toLoaded(id: number, data: SegmentData, deleted: Bitset, graphSeed?: HnswGraphBlock): LoadedSegment {
    const runner = this.kernels();
    const fields: LoadedSegment['fields'] = Object.create(null);
    for (const [field, t] of Object.entries(data.text)) {
      if (t.docs.length === 0) continue;
      fields[field] = { postings: runner.loadPostings(t.docs, t.tfs), lengths: runner.loadDocLengths(t.lengths) };
    }
    const quantize = this.record.settings.vectorQuantization === 'int8';
    let vectors: LoadedSegment['vectors'];
    if (data.vectors && data.docCount > 0) {
      const rows = prepareRows(data.vectors.data, data.vectors.dims, this.record.settings.vectorMetric ?? 'cosine');
      if (rows.zeroed > 0) {
        this.log.warn(
          { index: this.record.name, segment: id, rows: rows.zeroed },
          'vectors outside float32 range stored by an earlier version were zeroed; re-send those documents',
        );
      }
      vectors = runner.loadVectors(rows.data, { dims: data.vectors.dims, quantize });
    }
    const graph = vectors ? this.graphFor(id, vectors, graphSeed) : undefined;
    const geo: LoadedSegment['geo'] = Object.create(null);
    for (const [field, g] of Object.entries(data.geo ?? {})) {
      if (data.docCount === 0) continue;
      geo[field] = { block: runner.loadGeoPoints(g.lats, g.lons), grid: new GeoGrid(g.lats, g.lons, g.present, data.docCount) };
    }
    return { id, data, deleted, deletedCount: popcount(deleted), fields, geo, ...(vectors ? { vectors } : {}), ...(graph ? { graph } : {}) };
  }

  /**
   * A segment's graph under the current settings: the persisted one when it was built with them,
   * otherwise a build queued in the background. Until it is ready, searches scan the segment.
   */
  private graphFor(segId: number, vectors: VectorBlock, seed?: HnswGraphBlock): SegmentGraph | undefined {
    const hnsw = hnswSettings(this.record.settings);
    if (!hnsw) return undefined;
    const metric = KERNEL_METRICS[this.record.settings.vectorMetric ?? 'cosine']!;
    const runner = this.kernels();
    const state: SegmentGraph = { status: 'building', inserted: 0, total: vectors.count, abort: new AbortController() };
    const stored = this.dbs.graphs.get([this.record.uuid, segId]);
    if (stored) {
      try {
        const block = runner.loadHnswGraph(vectors, stored);
        if (block.m === hnsw.m && block.efConstruction === hnsw.efConstruction && block.metric === metric) {
          return Object.assign(state, { status: 'ready' as const, block, inserted: vectors.count });
        }
        runner.release(block);
      } catch (err) {
        this.log.warn({ index: this.record.name, segment: segId, err: (err as Error).message }, 'stored vector graph unusable; rebuilding it');
      }
    }
    // A merge hands over its largest segment's graph: copied now, while that segment still holds it,
    // so the build only inserts the other segments' rows.
    let premade: HnswGraphBlock | undefined;
    if (seed) {
      try {
        premade = runner.createHnswGraph(vectors, { metric, m: hnsw.m, efConstruction: hnsw.efConstruction, seed: segId, from: seed });
        state.inserted = runner.hnswInserted(premade);
      } catch (err) {
        this.log.warn(
          { index: this.record.name, segment: segId, err: (err as Error).message },
          'merged segment graph cannot start from its largest part; building it whole',
        );
      }
    }
    const label = { tenant: this.record.tenant, index: this.record.name, segment: segId, nodes: vectors.count };
    const pending = this.graphBuilds(label, (signal, inserted) => {
      // Shutdown or cancel of the job abandons the build as a merge or drop does.
      if (signal.aborted) state.abort.abort();
      else signal.addEventListener('abort', () => state.abort.abort(), { once: true });
      return this.buildGraph(segId, state, vectors, hnsw, metric, premade, inserted);
    });
    this.pendingBuilds.add(pending);
    void pending.finally(() => this.pendingBuilds.delete(pending));
    return state;
  }

  /** Never throws: a failed build leaves the segment scanned, and the queue goes on. */
  private async buildGraph(
    segId: number,
    state: SegmentGraph,
    vectors: VectorBlock,
    hnsw: HnswSettings,
    metric: Metric,
    premade: HnswGraphBlock | undefined,
    inserted: (n: number) => void,
  ): Promise<void> {
    const runner = this.kernels();
    const uuid = this.record.uuid;
    const started = performance.now();
    let block: HnswGraphBlock | undefined = premade;
    const reused = premade ? state.inserted : 0;
    const discard = (): void => {
      // The runner may already be closed (shutdown during a build): nothing left to free then.
      if (block && !runner.closed) runner.release(block);
      block = undefined;
    };
    if (state.abort.signal.aborted) {
      discard();
      return;
    }
    try {
      // Seeded by the segment id: the same documents in the same segment build the same graph.
      block ??= runner.createHnswGraph(vectors, { metric, m: hnsw.m, efConstruction: hnsw.efConstruction, seed: segId });
      // An int8 index builds on its codes too: 2.3x faster on mnist10k for the same recall.
      await runner.buildHnsw({
        graph: block,
        vectors,
        signal: state.abort.signal,
        onProgress: (n) => {
          state.inserted = n;
          inserted(n);
        },
        quantized: vectors.int8 !== null,
      });
      if (!state.abort.signal.aborted) await this.dbs.graphs.put([uuid, segId], Buffer.from(runner.hnswGraphBytes(block)));
      if (state.abort.signal.aborted) {
        // The segment was merged or dropped meanwhile; its graph row may just have been written.
        discard();
        await this.dbs.graphs.remove([uuid, segId]);
        return;
      }
    } catch (err) {
      discard();
      if (state.abort.signal.aborted) return;
      state.status = 'failed';
      state.error = (err as Error).message;
      this.log.error({ index: this.record.name, segment: segId, err }, 'vector graph build failed; the segment is scanned instead');
      return;
    }
    Object.assign(state, { status: 'ready', block });
    this.log.info({ index: this.record.name, segment: segId, nodes: vectors.count, reused, ms: Math.round(performance.now() - started) }, 'vector graph built');
  }

  /** Resolves when every graph build of this index queued so far has finished (tests, benchmarks). */
  async graphsSettled(): Promise<void> {
    while (this.pendingBuilds.size > 0) await Promise.all(this.pendingBuilds);
  }

  /** After a change of vectorIndex or vectorMetric: drop every graph and build them anew. */
  async resetGraphs(): Promise<void> {
    await this.serialise(async () => {
      const uuid = this.record.uuid;
      for (const seg of this.segments) this.releaseGraph(seg);
      await this.store.transaction(() => {
        for (const seg of this.segments) void this.dbs.graphs.remove([uuid, seg.id]);
      });
      this.segments = this.segments.map((seg) => {
        const { graph: _old, ...rest } = seg;
        const graph = seg.vectors ? this.graphFor(seg.id, seg.vectors) : undefined;
        return graph ? { ...rest, graph } : rest;
      });
    });
  }

  private releaseGraph(segment: LoadedSegment): void {
    const graph = segment.graph;
    if (!graph) return;
    graph.abort.abort();
    // A build in flight releases its own block when it sees the abort.
    const runner = this.kernels();
    if (graph.status === 'ready' && graph.block && !runner.closed) runner.release(graph.block);
    graph.status = 'released';
    graph.block = undefined;
  }

  private release(segment: LoadedSegment): void {
    const runner = this.kernels();
    for (const f of Object.values(segment.fields)) {
      runner.release(f.postings);
      runner.release(f.lengths);
    }
    this.releaseGraph(segment);
    if (segment.vectors) runner.release(segment.vectors);
    for (const g of Object.values(segment.geo)) runner.release(g.block);
  }

  /** Run `fn` after every earlier write of this index has finished. */
  private serialise<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.writing.then(fn, fn);
    this.writing = next.catch(() => undefined);
    return next;
  }

  /** The text autoEmbed embeds: the document's mapped text fields, in mapping order. */
  private embeddableText(fields: Record<string, { type: string; values: unknown[] }>, record: IndexRecord = this.record): string {
    return this.textFields(record)
      .flatMap((f) => (fields[f]?.values ?? []).map(String))
      .join('\n');
  }

  /**
   * Give documents without their own `_vector` an embedding (autoEmbed). Returns the documents
   * whose embedding failed, with the reason; the others have `vector` set.
   */
  private async embedMissing(
    docs: IndexableDocument[],
    corpus = this.embeddingCorpus(),
    record: IndexRecord = this.record,
  ): Promise<Map<IndexableDocument, string>> {
    const failed = new Map<IndexableDocument, string>();
    const embedder = embedderFor(record.settings, corpus, this.embedders);
    if (!embedder) return failed;
    const todo = docs.map((doc) => ({ doc, text: doc.vector ? '' : this.embeddableText(doc.fields, record) })).filter((t) => t.text.trim() !== '');
    if (todo.length === 0) return failed;
    try {
      const vectors = await embedder.embed(todo.map((t) => t.text));
      todo.forEach((t, i) => (t.doc.vector = vectors[i]!));
    } catch (err) {
      for (const t of todo) failed.set(t.doc, (err as Error).message);
    }
    return failed;
  }

  /** Ids of the live documents that pass `filter` (delete by filter), without reading any source. */
  idsMatching(filter: FilterNode): string[] {
    const ids: string[] = [];
    for (const seg of this.segments) {
      const set = andNotInPlace(evaluateFilter(filter, segmentColumns(seg), seg.data.docCount), seg.deleted);
      for (const ord of members(set)) ids.push(seg.data.ids[ord]!);
    }
    return ids;
  }

  getDocument(id: string): Record<string, unknown> | undefined {
    const bytes = this.dbs.docs.get([this.record.uuid, id]);
    return bytes === undefined ? undefined : (JSON.parse(bytes.toString('utf8')) as Record<string, unknown>);
  }

  sourceAt(segment: LoadedSegment, ord: number): Record<string, unknown> | undefined {
    return this.getDocument(segment.data.ids[ord]!);
  }

  /** Validate, then index the valid documents as one new segment; one bad document fails alone. */
  upsert(raw: readonly unknown[]): Promise<UpsertResult> {
    return this.serialise(async () => {
      const errors: UpsertResult['errors'] = [];
      const byId = new Map<string, { position: number; doc: IndexableDocument; source: Record<string, unknown>; stored: Buffer }>();
      let inferred: Record<string, FieldMapping> | undefined;
      raw.forEach((item, position) => {
        const mappings = inferred ? { ...this.record.mappings, ...inferred } : this.record.mappings;
        const prepared = prepareDocument(item, mappings, {
          dynamic: this.record.settings.dynamic,
          vectorDimensions: this.record.settings.vectorDimensions,
          vectorMetric: this.record.settings.vectorMetric ?? 'cosine',
        });
        if (!prepared.ok) {
          const raw = (item as { id?: unknown } | null)?.id;
          const id = typeof raw === 'string' || (typeof raw === 'number' && Number.isFinite(raw)) ? String(raw) : undefined;
          errors.push({ position, ...(id !== undefined ? { id } : {}), code: prepared.code, message: prepared.message });
          return;
        }
        const id = prepared.id ?? generateId();
        const source = { ...prepared.source, id };
        // Serialised here, per document, so that nothing can fail inside the write transaction.
        let stored: Buffer;
        try {
          stored = Buffer.from(JSON.stringify(source));
        } catch (err) {
          errors.push({ position, id, code: 'invalid_document', message: `The document cannot be stored: ${(err as Error).message}` });
          return;
        }
        if (prepared.inferred) inferred = { ...inferred, ...prepared.inferred };
        // Within one batch the last version of an id wins, as it would over two requests.
        const fields = prepared.fields as IndexableDocument['fields'];
        byId.set(id, { position, doc: { id, fields, ...(prepared.vector ? { vector: prepared.vector } : {}) }, source, stored });
      });
      let accepted = [...byId.values()].sort((a, b) => a.position - b.position);
      const notEmbedded = await this.embedMissing(accepted.map((a) => a.doc));
      if (notEmbedded.size > 0) {
        // The endpoint is down or refused: those documents fail, the rest of the batch goes on.
        for (const a of accepted) {
          const reason = notEmbedded.get(a.doc);
          if (reason !== undefined) errors.push({ position: a.position, id: a.doc.id, code: 'embedding_failed', message: reason });
        }
        errors.sort((x, y) => x.position - y.position);
        accepted = accepted.filter((a) => !notEmbedded.has(a.doc));
      }
      if (accepted.length === 0) return { indexed: 0, ids: [], errors };

      if (inferred) this.record = { ...this.record, mappings: { ...this.record.mappings, ...inferred } };
      const analyzers = Object.fromEntries(this.textFields().map((f) => [f, this.analyzerFor(f)]));
      const data = buildSegment(
        accepted.map((a) => a.doc),
        analyzers,
      );
      const segId = this.record.nextSegment;
      const uuid = this.record.uuid;
      const now = new Date().toISOString();
      const record: IndexRecord = { ...this.record, nextSegment: segId + 1, updatedAt: now };

      // Tombstones for the documents these replace, copied so searches keep their snapshot.
      const changed = new Map<number, Bitset>();
      for (const a of accepted) {
        const previous = this.locations.get(a.doc.id);
        if (!previous) continue;
        const seg = this.segments.find((s) => s.id === previous.seg);
        if (!seg) continue;
        let set = changed.get(seg.id);
        if (!set) changed.set(seg.id, (set = seg.deleted.slice()));
        add(set, previous.ord);
      }

      // Everything the transaction writes is built before it starts: the segment (postings and
      // stored values) and the sources commit together or not at all, so a document is never
      // stored without being indexed.
      const encoded = encodeSegment(data);
      await this.store.transaction(() => {
        void this.dbs.segments.put([uuid, segId], encoded);
        for (const [id, set] of changed) void this.dbs.tombstones.put([uuid, id], Buffer.from(set.buffer, set.byteOffset, set.byteLength));
        for (const a of accepted) void this.dbs.docs.put([uuid, a.doc.id], a.stored);
        void this.dbs.indexes.put([record.tenant, record.name], record);
      });

      this.record = record;
      accepted.forEach((a, ord) => this.locations.set(a.doc.id, { seg: segId, ord }));
      const loaded = this.toLoaded(segId, data, emptySet(data.docCount));
      this.segments = [
        ...this.segments.map((s) => (changed.has(s.id) ? { ...s, deleted: changed.get(s.id)!, deletedCount: popcount(changed.get(s.id)!) } : s)),
        loaded,
      ];
      const ids = accepted.map((a) => a.doc.id);
      this.onWrite(this, { upserted: ids, deleted: [] });
      return { indexed: accepted.length, ids, errors };
    });
  }

  /** Delete by id; returns how many existed. */
  delete(ids: readonly string[]): Promise<number> {
    return this.serialise(async () => {
      const uuid = this.record.uuid;
      const changed = new Map<number, Bitset>();
      const existing: string[] = [];
      for (const id of new Set(ids)) {
        const entry = this.locations.get(id);
        if (!entry) continue;
        existing.push(id);
        const seg = this.segments.find((s) => s.id === entry.seg);
        if (!seg) continue;
        let set = changed.get(seg.id);
        if (!set) changed.set(seg.id, (set = seg.deleted.slice()));
        add(set, entry.ord);
      }
      if (existing.length === 0) return 0;
      const record = { ...this.record, updatedAt: new Date().toISOString() };
      await this.store.transaction(() => {
        for (const id of existing) void this.dbs.docs.remove([uuid, id]);
        for (const [segId, set] of changed) void this.dbs.tombstones.put([uuid, segId], Buffer.from(set.buffer, set.byteOffset, set.byteLength));
        void this.dbs.indexes.put([record.tenant, record.name], record);
      });
      this.record = record;
      for (const id of existing) this.locations.delete(id);
      this.segments = this.segments.map((s) => (changed.has(s.id) ? { ...s, deleted: changed.get(s.id)!, deletedCount: popcount(changed.get(s.id)!) } : s));
      this.onWrite(this, { upserted: [], deleted: existing });
      return existing.length;
    });
  }

  /**
   * Merge when segments pile up, tiered like Lucene's policy: the `factor` smallest segments (by
   * live documents) are re-indexed into one, in one transaction, until at most `maxSegments`
   * remain. Merging the small ones first keeps the work per document logarithmic in the index
   * size, where merging everything into one each time would be quadratic under a long ingest.
   */
  mergeIfNeeded(maxSegments: number, factor = 4): Promise<boolean> {
    return this.serialise(async () => {
      let merged = false;
      while (this.segments.length > Math.max(maxSegments, 1)) {
        const bySize = [...this.segments].sort((a, b) => a.data.docCount - a.deletedCount - (b.data.docCount - b.deletedCount));
        await this.mergeSegments(bySize.slice(0, Math.max(2, Math.min(factor, this.segments.length - maxSegments + 1))));
        merged = true;
      }
      return merged;
    });
  }

  /**
   * Re-analyse every document from its stored source into one segment: after a mapping change
   * alters analysis. Unlike a merge this reads every source, one at a time.
   */
  reindex(next: IndexRecord = this.record, progress: ReindexProgress = () => undefined): Promise<void> {
    return this.serialise(async () => {
      if (this.segments.length === 0) {
        await this.dbs.indexes.put([next.tenant, next.name], { ...next, nextSegment: this.record.nextSegment });
        this.record = { ...next, nextSegment: this.record.nextSegment };
        return;
      }
      const docs: IndexableDocument[] = [];
      // Documents that do not fit the new mappings, or cannot be embedded: the change is refused.
      const invalid: Array<{ id: string; code: string; message: string }> = [];
      const total = this.docCount;
      let read = 0;
      progress('read', 0, total);
      for (const seg of this.segments) {
        for (let ord = 0; ord < seg.data.docCount; ord++) {
          if (has(seg.deleted, ord)) continue;
          if (++read % 4096 === 0) progress('read', read, total);
          const id = seg.data.ids[ord]!;
          const source = this.getDocument(id);
          if (!source) continue;
          const prepared = prepareDocument(source, next.mappings, {
            dynamic: false,
            vectorDimensions: next.settings.vectorDimensions,
            vectorMetric: next.settings.vectorMetric ?? 'cosine',
          });
          if (prepared.ok) docs.push({ id, fields: prepared.fields as IndexableDocument['fields'], ...(prepared.vector ? { vector: prepared.vector } : {}) });
          else invalid.push({ id, code: prepared.code, message: prepared.message });
        }
      }
      if (invalid.length > 0) throw new ReindexRefusedError(this.record.name, invalid);
      // Every vector is remade here, so this is when a trained embedder learns the corpus anew.
      progress('read', read, total);
      if (this.trainsEmbedder(next)) progress('train', 0, total);
      const model = this.trainsEmbedder(next) ? await this.trainTermModel(docs, next) : undefined;
      const statistics = this.termStatistics(next);
      progress('embed', 0, total);
      const failed = await this.embedMissing(docs, model ? { ...statistics, model } : statistics, next);
      if (failed.size > 0) {
        const [reason] = failed.values();
        throw new EmbedderError(`${reason} The index is unchanged: ${failed.size} of ${docs.length} documents could not be embedded under the new settings.`, {
          failed: failed.size,
          ids: [...failed.keys()].slice(0, MAX_LISTED_IDS).map((d) => d.id),
        });
      }
      const analyzers = Object.fromEntries(this.textFields(next).map((f) => [f, this.analyzerFor(f, next)]));
      progress('build', total, total);
      await this.replaceSegments(this.segments, buildSegment(docs, analyzers), { termModel: model }, undefined, next);
    });
  }

  private async trainTermModel(docs: readonly IndexableDocument[], record: IndexRecord = this.record): Promise<CorpusLsaModel> {
    const started = performance.now();
    const texts = docs.map((d) => this.embeddableText(d.fields, record)).filter((t) => t.trim() !== '');
    const model = await trainCorpusLsa(texts, this.termStatistics(record).analyzers, record.settings.vectorDimensions!);
    this.log.info(
      { index: this.record.name, docs: model.docCount, terms: model.terms.size, rank: model.rank, ms: Math.round(performance.now() - started) },
      'embedder model trained',
    );
    return model;
  }

  /**
   * With graphs, the largest merged segment that has a ready graph and no deletions goes first, so
   * its rows keep their ordinals and its graph seeds the merged one (Lucene does the same): only
   * the other segments' vectors are inserted.
   */
  private async mergeSegments(selected: readonly LoadedSegment[]): Promise<void> {
    const seed = selected
      .filter((s) => s.deletedCount === 0 && s.graph?.status === 'ready' && s.graph.block)
      .sort((a, b) => b.data.docCount - a.data.docCount)[0];
    const ordered = seed ? [seed, ...selected.filter((s) => s !== seed)] : selected;
    await this.replaceSegments(ordered, mergeSegmentData(ordered), undefined, seed?.graph?.block);
  }

  /**
   * Swap `selected` for one new segment in one transaction; sources are not touched. `embedder`,
   * after a re-embed: the term model that made the new segment's vectors (none: remove the stored one).
   */
  private async replaceSegments(
    selected: readonly LoadedSegment[],
    data: SegmentData,
    embedder?: { termModel: CorpusLsaModel | undefined },
    graphSeed?: HnswGraphBlock,
    settled?: IndexRecord,
  ): Promise<void> {
    const uuid = this.record.uuid;
    const segId = this.record.nextSegment;
    // A re-index commits the settings and mappings it was built under with its segment.
    const record = { ...(settled ?? this.record), nextSegment: segId + 1 };
    await this.store.transaction(() => {
      if (embedder?.termModel) void this.dbs.embedderModels.put(uuid, encodeCorpusLsa(embedder.termModel));
      else if (embedder) void this.dbs.embedderModels.remove(uuid);
      for (const seg of selected) {
        void this.dbs.segments.remove([uuid, seg.id]);
        void this.dbs.tombstones.remove([uuid, seg.id]);
        void this.dbs.graphs.remove([uuid, seg.id]);
      }
      if (data.docCount > 0) void this.dbs.segments.put([uuid, segId], encodeSegment(data));
      void this.dbs.indexes.put([record.tenant, record.name], record);
    });
    this.record = record;
    const gone = new Set(selected.map((s) => s.id));
    const kept = this.segments.filter((s) => !gone.has(s.id));
    data.ids.forEach((id, ord) => this.locations.set(id, { seg: segId, ord }));
    this.segments = data.docCount > 0 ? [...kept, this.toLoaded(segId, data, emptySet(data.docCount), graphSeed)] : kept;
    // With the segment, so no search pairs the new vectors with the old model or the reverse.
    if (embedder) this.termModel = embedder.termModel;
    for (const seg of selected) this.release(seg);
    this.log.info({ index: record.name, merged: selected.length, docs: data.docCount }, 'segments merged');
  }

  /** Drop the index's data and free its kernel memory. */
  drop(): Promise<void> {
    return this.serialise(async () => {
      const uuid = this.record.uuid;
      await this.store.transaction(() => {
        for (const key of this.dbs.docs.getKeys({ start: [uuid, ''], end: [uuid, '\uffff'] })) void this.dbs.docs.remove(key);
        for (const seg of this.segments) {
          void this.dbs.segments.remove([uuid, seg.id]);
          void this.dbs.tombstones.remove([uuid, seg.id]);
          void this.dbs.graphs.remove([uuid, seg.id]);
        }
        void this.dbs.indexes.remove([this.record.tenant, this.record.name]);
        void this.dbs.embedderModels.remove(uuid);
      });
      for (const seg of this.segments) this.release(seg);
      this.segments = [];
      this.locations.clear();
    });
  }

  close(): void {
    for (const seg of this.segments) this.release(seg);
    this.segments = [];
    this.locations.clear();
  }
}

function generateId(): string {
  // 16 random bytes, URL-safe: unique without coordination, like Elasticsearch's auto ids.
  return randomBytes(16).toString('base64url');
}
