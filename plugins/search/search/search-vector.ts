import { rescaleForCosine, vectorRangeProblem } from '../index/vector-range.js';
import type { BitsetBlock, KernelRunner, Metric } from 'tessera-runtime/kernels';
import { InputError } from 'tessera-runtime/plugin';
import { andInPlace, andNotInPlace, popcount } from '../index/bitset.js';
import { evaluateFilter, type FilterNode } from '../query/filter.js';
import { compileProjection, projectSource } from './projection.js';
import { keywordHighlighter, searchKeyword, type Hit, type KeywordQuery } from './search-keyword.js';
import { hnswSettings, KERNEL_METRICS, type LoadedSegment, type SearchIndex } from '../index/search-index.js';
import { segmentColumns } from '../index/segment-columns.js';

/** How the vector side of a query searches: per-query overrides of the index's vectorIndex. */
export interface VectorSearchOptions {
  /** Beam width of the HNSW search (default: the index's `vectorIndex.efSearch`). */
  efSearch?: number;
  /** Scan every vector even when the index has graphs. */
  exact?: boolean;
}

export interface VectorQuery extends VectorSearchOptions {
  vector: readonly number[];
  size: number;
  from: number;
  filter?: FilterNode;
  projection?: Record<string, 0 | 1>;
  select?: string[];
}

export const fusions = ['rrf', 'convex'] as const;
export type Fusion = (typeof fusions)[number];

export interface HybridQuery extends KeywordQuery, VectorSearchOptions {
  vector: readonly number[];
  /**
   * `rrf`: reciprocal rank fusion of the two windows. `convex`: each window's scores min-max
   * normalised to 0..1 (a document missing from one window gets 0 there), then
   * `(1 - semanticRatio) * keyword + semanticRatio * semantic`. @default 'rrf'
   */
  fusion?: Fusion;
  rrfK: number;
  windowSize: number;
  semanticRatio: number;
  explain: boolean;
}

interface Ranked {
  id: string;
  score: number;
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

export async function searchSemantic(index: SearchIndex, runner: KernelRunner, query: VectorQuery): Promise<{ total: number; hits: Hit[] }> {
  const projection = compileProjection(query.projection, query.select);
  const { ranked, total } = await rankByVector(index, runner, query.vector, Math.max(1, query.from + query.size), query.filter, query);
  const hits: Hit[] = [];
  for (const r of ranked.slice(query.from, query.from + query.size)) {
    const source = index.getDocument(r.id);
    if (source) hits.push({ id: r.id, score: r.score, source: projectSource(source, projection), highlight: {} });
  }
  return { total, hits };
}

/**
 * Keyword and vector retrieval fused by reciprocal rank fusion on the RRF kernel: each side's top
 * `windowSize`, weighted `1 - semanticRatio` and `semanticRatio`. When one side finds nothing, the
 * other side's order is returned as it is.
 */
export async function searchHybrid(
  index: SearchIndex,
  runner: KernelRunner,
  query: HybridQuery,
): Promise<{ total: number; hits: Array<Hit & { explain?: unknown }> }> {
  const projection = compileProjection(query.projection, query.select);
  const keyword = await searchKeyword(index, runner, { ...query, size: query.windowSize, from: 0, highlight: false, select: ['id'], projection: undefined });
  const keywordRanked: Ranked[] = keyword.hits.map((h) => ({ id: h.id, score: h.score }));
  const semantic = await rankByVector(index, runner, query.vector, query.windowSize, query.filter, query);
  const ids: string[] = [];
  const slot = new Map<string, number>();
  const idOf = (id: string): number => {
    let s = slot.get(id);
    if (s === undefined) {
      s = ids.length;
      ids.push(id);
      slot.set(id, s);
    }
    return s;
  };
  const lists = [keywordRanked.map((r) => idOf(r.id)), semantic.ranked.map((r) => idOf(r.id))];
  const want = query.from + query.size;
  const fusion = query.fusion ?? 'rrf';
  const weights = { keyword: 1 - query.semanticRatio, semantic: query.semanticRatio };
  let order: Array<{ slot: number; score: number }>;
  if (ids.length === 0 || want === 0) order = [];
  else if (fusion === 'convex') order = convexFusion(ids, [keywordRanked, semantic.ranked], [weights.keyword, weights.semantic], idOf).slice(0, want);
  else if (lists[0]!.length === 0 || lists[1]!.length === 0) {
    const only = lists[0]!.length === 0 ? 1 : 0;
    order = lists[only]!.map((s, rank) => ({ slot: s, score: 1 / (query.rrfK + rank + 1) }));
  } else {
    const fused = await runner.rrf({
      lists,
      k: Math.min(want, ids.length),
      weights: [weights.keyword, weights.semantic],
      rankConstant: query.rrfK,
      idSpace: ids.length,
    });
    order = Array.from(fused.ids, (s, i) => ({ slot: s, score: fused.scores[i]! }));
  }
  const keywordRanks = explainSide(keywordRanked, weights.keyword, fusion, query.rrfK);
  const semanticRanks = explainSide(semantic.ranked, weights.semantic, fusion, query.rrfK);
  const highlight = query.highlight === false ? undefined : keywordHighlighter(index, query);
  const hits: Array<Hit & { explain?: unknown }> = [];
  for (const { slot: s, score } of order.slice(query.from, want)) {
    const id = ids[s]!;
    const source = index.getDocument(id);
    if (!source) continue;
    hits.push({
      id,
      score,
      source: projectSource(source, projection),
      highlight: highlight ? highlight(source) : {},
      ...(query.explain
        ? {
            explain: {
              fusion,
              ...(fusion === 'rrf' ? { rrfScore: score } : { convexScore: score }),
              keyword: keywordRanks.get(id) ?? null,
              semantic: semanticRanks.get(id) ?? null,
            },
          }
        : {}),
    });
  }
  return { total: ids.length, hits };
}

/** Each window's scores min-max normalised to 0..1: the best 1, the last 0 (all 1 when they tie). */
function normalise(list: readonly Ranked[]): number[] {
  if (list.length === 0) return [];
  const max = list[0]!.score;
  const min = list[list.length - 1]!.score;
  return list.map((r) => (max > min ? (r.score - min) / (max - min) : 1));
}

/** `convex` fusion: weighted sum of the normalised scores, best first, ties by id. */
function convexFusion(
  ids: readonly string[],
  sides: readonly [readonly Ranked[], readonly Ranked[]],
  weights: readonly [number, number],
  idOf: (id: string) => number,
): Array<{ slot: number; score: number }> {
  const scores = new Float64Array(ids.length);
  sides.forEach((list, side) => {
    const normal = normalise(list);
    list.forEach((r, i) => (scores[idOf(r.id)]! += weights[side]! * normal[i]!));
  });
  return Array.from(scores, (score, slot) => ({ slot, score })).sort((a, b) => b.score - a.score || (ids[a.slot]! < ids[b.slot]! ? -1 : 1));
}

/**
 * Per document of one side's window, what `explain` shows: its rank and raw score there, the
 * side's weight, and what the side added to the fused score (`weight / (rrfK + rank)` for RRF,
 * `weight * normalised` for convex, with the normalised score).
 */
function explainSide(list: readonly Ranked[], weight: number, fusion: Fusion, rrfK: number): Map<string, Record<string, number>> {
  const normal = fusion === 'convex' ? normalise(list) : [];
  return new Map(
    list.map((r, i): [string, Record<string, number>] => [
      r.id,
      fusion === 'convex'
        ? { rank: i + 1, score: r.score, weight, normalized: normal[i]!, contribution: weight * normal[i]! }
        : { rank: i + 1, score: r.score, weight, contribution: weight / (rrfK + i + 1) },
    ]),
  );
}
