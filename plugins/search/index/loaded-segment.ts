import type { Logger } from 'pino';
import type { DocLengthsBlock, GeoBlock, HnswGraphBlock, KernelRunner, Metric, PostingsBlock, VectorBlock } from 'tessera-runtime/kernels';
import { popcount, type Bitset } from './bitset.js';
import { GeoGrid } from './geo-grid.js';
import type { IndexRecord } from './index-record.js';
import type { IndexSettings } from './mappings.js';
import type { SegmentData } from './segment.js';
import { prepareRows } from './vector-range.js';

/**
 * Kernel residency: a segment as searched holds its text fields' postings and lengths, its vectors
 * and its geo points in kernel memory (WASM blocks on the kernel pool), loaded when the segment is
 * opened or built and released when a merge, a re-index or a drop retires it.
 */

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

/** Loads a segment's blocks into kernel memory; `graphFor` gives its vectors a graph (or none). */
export function loadSegment(
  runner: KernelRunner,
  record: IndexRecord,
  log: Logger,
  id: number,
  data: SegmentData,
  deleted: Bitset,
  graphFor: (vectors: VectorBlock) => SegmentGraph | undefined,
): LoadedSegment {
  const fields: LoadedSegment['fields'] = Object.create(null);
  for (const [field, t] of Object.entries(data.text)) {
    if (t.docs.length === 0) continue;
    fields[field] = { postings: runner.loadPostings(t.docs, t.tfs), lengths: runner.loadDocLengths(t.lengths) };
  }
  const quantize = record.settings.vectorQuantization === 'int8';
  let vectors: LoadedSegment['vectors'];
  if (data.vectors && data.docCount > 0) {
    const rows = prepareRows(data.vectors.data, data.vectors.dims, record.settings.vectorMetric ?? 'cosine');
    if (rows.zeroed > 0) {
      log.warn(
        { index: record.name, segment: id, rows: rows.zeroed },
        'vectors outside float32 range stored by an earlier version were zeroed; re-send those documents',
      );
    }
    vectors = runner.loadVectors(rows.data, { dims: data.vectors.dims, quantize });
  }
  const graph = vectors ? graphFor(vectors) : undefined;
  const geo: LoadedSegment['geo'] = Object.create(null);
  for (const [field, g] of Object.entries(data.geo ?? {})) {
    if (data.docCount === 0) continue;
    geo[field] = { block: runner.loadGeoPoints(g.lats, g.lons), grid: new GeoGrid(g.lats, g.lons, g.present, data.docCount) };
  }
  return { id, data, deleted, deletedCount: popcount(deleted), fields, geo, ...(vectors ? { vectors } : {}), ...(graph ? { graph } : {}) };
}

/** Frees a retired segment's kernel memory; `releaseGraph` stops and frees its graph. */
export function releaseSegment(runner: KernelRunner, segment: LoadedSegment, releaseGraph: (segment: LoadedSegment) => void): void {
  for (const f of Object.values(segment.fields)) {
    runner.release(f.postings);
    runner.release(f.lengths);
  }
  releaseGraph(segment);
  if (segment.vectors) runner.release(segment.vectors);
  for (const g of Object.values(segment.geo)) runner.release(g.block);
}
