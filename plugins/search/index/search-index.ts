import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { HnswGraphBlock, KernelRunner } from 'tessera-runtime/kernels';
import { InputError, TesseraError, type StoreNamespace } from 'tessera-runtime/plugin';
import { getAnalyzer, type Analyzer } from '../analysis/analyzer.js';
import { add, andNotInPlace, emptySet, has, members, popcount, type Bitset } from './bitset.js';
import { evaluateFilter, type FilterNode } from '../query/filter.js';
import { segmentColumns } from './segment-columns.js';
import { prepareDocument } from './document-validation.js';
import type { FieldMapping } from './mappings.js';
import { CORPUS_LSA_V1, decodeCorpusLsa, encodeCorpusLsa, trainingDue, type CorpusLsaModel } from '../embedders/corpus-lsa.js';
import { EmbedderCatalog, EmbedderError, embedderFor } from '../embedders/embedder.js';
import { embeddingCorpus, type EmbeddingCorpus } from '../embedders/embedding-corpus.js';
import { collectionStatistics, type CollectionStatistics } from './collection-statistics.js';
import { embedMissing, trainsEmbedder, trainTermModel } from './embedder-training.js';
import type { IndexDatabases, IndexRecord, UpsertResult, WriteChange } from './index-record.js';
import { loadSegment, releaseSegment, type LoadedSegment } from './loaded-segment.js';
import { SegmentGraphs } from './segment-graphs.js';
import { buildSegment, decodeSegment, encodeSegment, type IndexableDocument, type SegmentData } from './segment.js';
import { mergeOrder, mergeSelection, mergeSegmentData } from './segment-merge.js';
import { serialGraphBuilds, type GraphBuildRunner, type ReindexProgress } from './runners.js';

/** Where a document's live version sits. */
interface Location {
  seg: number;
  ord: number;
}

/**
 * One live index. Writes are serialised (one at a time per index) and each is one LMDB
 * transaction: the new segment, the tombstones of replaced documents and the stored sources commit
 * together, so a write acknowledged to a client is on disk and a crash never leaves half of one.
 * Searches read an immutable array of segments that a write replaces when it has committed, so
 * reads are never blocked by ingestion.
 */

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
  extraStats: (options: { sizes: boolean }) => Record<string, unknown> = () => ({});
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
  /** The segments' HNSW graphs and their builds (the plugin's jobs, one per kernel pool thread). */
  private readonly graphs: SegmentGraphs;
  /** The deployment's remote embedders, which `settings.embedder` names. */
  readonly embedders: EmbedderCatalog;
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
    this.embedders = deps.embedders ?? new EmbedderCatalog();
    this.onWrite = deps.onWrite ?? (() => undefined);
    this.dbs = deps.dbs;
    this.store = deps.store;
    this.kernels = deps.kernels;
    this.log = deps.log;
    this.graphs = new SegmentGraphs({
      record: () => this.record,
      dbs: this.dbs,
      kernels: this.kernels,
      log: this.log,
      runner: deps.graphBuilds ?? serialGraphBuilds(),
    });
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
    return trainsEmbedder(record);
  }

  /** Whether the trained embedder should learn the corpus now, as it has grown (corpus-lsa.ts). */
  embedderTrainingDue(): boolean {
    return this.trainsEmbedder() && trainingDue(this.docCount, this.termModel);
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
    return loadSegment(this.kernels(), this.record, this.log, id, data, deleted, (vectors) => this.graphs.graphFor(id, vectors, graphSeed));
  }

  /** Resolves when every graph build of this index queued so far has finished (tests, benchmarks). */
  graphsSettled(): Promise<void> {
    return this.graphs.settled();
  }

  /** After a change of vectorIndex or vectorMetric: drop every graph and build them anew. */
  async resetGraphs(): Promise<void> {
    await this.serialise(async () => {
      const uuid = this.record.uuid;
      for (const seg of this.segments) this.graphs.release(seg);
      await this.store.transaction(() => {
        for (const seg of this.segments) void this.dbs.graphs.remove([uuid, seg.id]);
      });
      this.segments = this.segments.map((seg) => {
        const { graph: _old, ...rest } = seg;
        const graph = seg.vectors ? this.graphs.graphFor(seg.id, seg.vectors) : undefined;
        return graph ? { ...rest, graph } : rest;
      });
    });
  }

  private release(segment: LoadedSegment): void {
    releaseSegment(this.kernels(), segment, (seg) => this.graphs.release(seg));
  }

  /** Run `fn` after every earlier write of this index has finished. */
  private serialise<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.writing.then(fn, fn);
    this.writing = next.catch(() => undefined);
    return next;
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
      const notEmbedded = await embedMissing(
        accepted.map((a) => a.doc),
        embedderFor(this.record.settings, this.embeddingCorpus(), this.embedders),
        this.textFields(),
      );
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

  /** Merge when segments pile up (segment-merge.ts's policy), each merge one transaction, until at most `maxSegments` remain. */
  mergeIfNeeded(maxSegments: number, factor = 4): Promise<boolean> {
    return this.serialise(async () => {
      let merged = false;
      for (let selected = mergeSelection(this.segments, maxSegments, factor); selected; selected = mergeSelection(this.segments, maxSegments, factor)) {
        const { ordered, seed } = mergeOrder(selected);
        await this.replaceSegments(ordered, mergeSegmentData(ordered), undefined, seed?.graph?.block);
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
      const model = this.trainsEmbedder(next)
        ? await trainTermModel(docs, next, this.textFields(next), this.termStatistics(next).analyzers, this.log)
        : undefined;
      const statistics = this.termStatistics(next);
      progress('embed', 0, total);
      const failed = await embedMissing(docs, embedderFor(next.settings, model ? { ...statistics, model } : statistics, this.embedders), this.textFields(next));
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
