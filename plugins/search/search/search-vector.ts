import { rescaleForCosine, vectorRangeProblem } from '../index/vector-range.js';
import type { BitsetBlock, KernelRunner, Metric } from 'tessera-runtime/kernels';
import { InputError } from 'tessera-runtime/plugin';
import { andInPlace, andNotInPlace, popcount } from '../index/bitset.js';
import { evaluateFilter, type FilterNode } from '../query/filter.js';
import type { Ranked } from './fetch.js';
import { hnswSettings, KERNEL_METRICS, type LoadedSegment } from '../index/loaded-segment.js';
import type { SearchIndex } from '../index/search-index.js';
import { segmentColumns } from '../index/segment-columns.js';

/** How the vector side of a query searches: per-query overrides of the index's vectorIndex. */
export interface VectorSearchOptions {
  /** Beam width of the HNSW search (default: the index's `vectorIndex.efSearch`). */
  efSearch?: number;
  /** Scan every vector even when the index has graphs. */
  exact?: boolean;
}

function checkVector(index: SearchIndex, vector: readonly number[]): Metric {
  const dims = index.record.settings.vectorDimensions;
  if (dims === undefined) {
    throw new InputError('invalid_vector', `Index "${index.name}" has no vectorDimensions setting, so it cannot be searched by vector.`);
  }
  if (vector.length !== dims || vector.some((v) => !Number.isFinite(v))) {
    throw new InputError('invalid_vector', `"vector" must be ${dims} finite numbers, got ${vector.length}.`, {
      details: { expected: dims, received: vector.length },
    });
  }
  const problem = vectorRangeProblem(vector, index.record.settings.vectorMetric ?? 'cosine');
  if (problem) throw new InputError('invalid_vector', `"vector" ${problem}.`, { details: { expected: dims, received: vector.length } });
  return KERNEL_METRICS[index.record.settings.vectorMetric ?? 'cosine']!;
}

/**
 * Whether a segment is searched through its graph. A filter that leaves few rows makes the graph
 * walk long and the scan short, so below a tenth of the segment, or a few beams' worth of rows,
 * the rows are scanned (Lucene and Qdrant switch to exact search on selective filters the same way).
 */
function graphUsable(seg: LoadedSegment, allowed: number, ef: number): boolean {
  const graph = seg.graph;
  return graph !== undefined && graph.status === 'ready' && graph.block !== undefined && allowed >= 0.1 * seg.data.docCount && allowed > 4 * ef;
}

/**
 * Similarity as reported: the kernel's scores are higher-is-better already (cosine, dot); for
 * euclidean the kernel gives the negated squared distance, reported as 1 / (1 + d^2) so that every
 * metric answers a positive similarity (Elasticsearch's convention).
 */
const similarity = (metric: Metric, score: number): number => (metric === 'euclidean' ? 1 / (1 - score) : score);

/** The k nearest documents by the index metric, filters and deletes applied before top-k. */
export async function rankByVector(
  index: SearchIndex,
  runner: KernelRunner,
  vector: readonly number[],
  k: number,
  filter?: FilterNode,
  options: VectorSearchOptions = {},
): Promise<{ ranked: Ranked[]; total: number }> {
  const metric = checkVector(index, vector);
  // Cosine ignores scale: very large or very small queries are brought near 1 before float32 math.
  if (metric === 'cosine') vector = Array.from(rescaleForCosine(vector));
  const hnsw = options.exact ? undefined : hnswSettings(index.record.settings);
  const ef = Math.max(options.efSearch ?? hnsw?.efSearch ?? 100, k);
  const lists: Ranked[][] = [];
  let total = 0;
  for (const seg of index.segments) {
    if (!seg.vectors || !seg.data.vectors) continue;
    const allowed = seg.data.vectors.present.slice();
    if (seg.deletedCount > 0) andNotInPlace(allowed, seg.deleted);
    if (filter) andInPlace(allowed, evaluateFilter(filter, segmentColumns(seg), seg.data.docCount));
    const count = popcount(allowed);
    total += count;
    if (count === 0) continue;
    let block: BitsetBlock | undefined;
    try {
      // Every row allowed (no deletes, no filter, every document with a vector): no bitset to load.
      if (count < seg.data.docCount) block = runner.loadBitset(allowed, seg.data.docCount);
      // Blocks loaded before a switch to int8 (until the re-index) have no codes: scan them in f32.
      const quantized = index.record.settings.vectorQuantization === 'int8' && seg.vectors.int8 !== null;
      // Checked just before the call, which runs at once: a merge cannot release the graph between.
      const top =
        hnsw && graphUsable(seg, count, ef)
          ? await runner.hnswSearch({ graph: seg.graph!.block!, vectors: seg.vectors, vector, k: Math.min(k, count), ef, filter: block, quantized })
          : await runner.vectorSearch({ block: seg.vectors, vector, metric, k: Math.min(k, count), filter: block, quantized });
      lists.push(Array.from(top.ids, (ord, i) => ({ id: seg.data.ids[ord]!, score: similarity(metric, top.scores[i]!) })));
    } finally {
      if (block) runner.release(block);
    }
  }
  const ranked = lists
    .flat()
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(0, k);
  return { ranked, total };
}
