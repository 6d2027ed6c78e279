import { bitsetHas } from "./bitset";
import { dotF32, squaredL2F32 } from "./f32-distance";
import { METRIC_COSINE, METRIC_DOT } from "./metric";
import { dotI8, INT8_PARAM_BYTES } from "./vector-int8";

// HNSW (Malkov & Yashunin, 2016) over a vector block's f32 rows, in one region the host lays out
// (kernels/src/hnsw-graph.ts) and this file only reads and links. The header, in u32 words:
//   0 magic | 1 version | 2 count | 3 dims | 4 M | 5 M0 | 6 efConstruction | 7 entry point
//   8 top level (-1 while empty) | 9 metric | 10 nodes inserted | 11 upper lists
//   12..15 byte offsets (from the header) of: levels u32[count], upper-list start u32[count],
//   level-0 lists (1 + M0 words each), upper lists (1 + M words each) | 16 total bytes
// A list is its length followed by neighbour ids. Levels are drawn by the host (seeded), so a
// build is deterministic and the host can size every list before the first insert.
//
// Similarity is higher-is-better for every metric, as in the scan kernels: dot, cosine, or the
// negated squared distance. Ties order by id, so answers do not depend on heap history.

const H_COUNT = 2 << 2;
const H_DIMS = 3 << 2;
const H_M = 4 << 2;
const H_M0 = 5 << 2;
const H_EF_CONSTRUCTION = 6 << 2;
const H_ENTRY = 7 << 2;
const H_TOP_LEVEL = 8 << 2;
const H_METRIC = 9 << 2;
const H_INSERTED = 10 << 2;
const H_LEVELS = 12 << 2;
const H_UPPER_START = 13 << 2;
const H_LEVEL0 = 14 << 2;
const H_UPPER = 15 << 2;

// The graph and scratch of the current call; each instance (main thread or worker) runs one call
// at a time, so module globals are safe.
let graph: usize = 0;
let count: i32 = 0;
let dims: i32 = 0;
let m: i32 = 0;
let m0: i32 = 0;
let metric: i32 = 0;
let vectors: usize = 0;
let norms: usize = 0;
let levels: usize = 0;
let upperStart: usize = 0;
let level0: usize = 0;
let upper: usize = 0;
// Scratch: visited bitset | candidates max-heap (count + 1 pairs) | results min-heap (ef + 2)
// | two pair buffers of max(ef, M0) + 2 for neighbour selection. A pair is f32 score, u32 id.
let visited: usize = 0;
let visitedBytes: i32 = 0;
let candidates: usize = 0;
let results: usize = 0;
let bufA: usize = 0;
let bufB: usize = 0;
// A quantised search walks the graph on the block's int8 codes (a quarter of the bytes per row)
// and rescores the beam it ends with in f32. 0 when walking in f32.
let codes: usize = 0;
let codeParams: usize = 0;
let queryCodes: usize = 0;
let queryScale: f32 = 0;
let queryOffset: f32 = 0;
let querySum: f32 = 0;
let queryNormI8: f32 = 0;

function bind(graphPtr: usize, vectorsPtr: usize, normsPtr: usize, scratchPtr: usize, ef: i32): void {
  graph = graphPtr;
  count = load<i32>(graphPtr + H_COUNT);
  dims = load<i32>(graphPtr + H_DIMS);
  m = load<i32>(graphPtr + H_M);
  m0 = load<i32>(graphPtr + H_M0);
  metric = load<i32>(graphPtr + H_METRIC);
  vectors = vectorsPtr;
  norms = normsPtr;
  levels = graphPtr + <usize>load<u32>(graphPtr + H_LEVELS);
  upperStart = graphPtr + <usize>load<u32>(graphPtr + H_UPPER_START);
  level0 = graphPtr + <usize>load<u32>(graphPtr + H_LEVEL0);
  upper = graphPtr + <usize>load<u32>(graphPtr + H_UPPER);
  visited = scratchPtr;
  visitedBytes = ((count + 63) >> 6) << 3;
  candidates = visited + <usize>visitedBytes;
  results = candidates + (<usize>(count + 1) << 3);
  bufA = results + (<usize>(ef + 2) << 3);
  bufB = bufA + (<usize>(max(ef, m0) + 2) << 3);
  codes = 0;
}

/** Scratch bytes a call with this `ef` needs, laid out as `bind` reads them; the host asks here. */
export function hnswScratchBytes(nodes: i32, maxDegree: i32, ef: i32): i32 {
  return (((nodes + 63) >> 6) << 3) + ((nodes + 1) << 3) + ((ef + 2) << 3) + ((max(ef, maxDegree) + 2) << 4);
}

// @ts-ignore: decorator
@inline function rowOf(node: u32): usize {
  return vectors + <usize>node * (<usize>dims << 2);
}

// @ts-ignore: decorator
@inline function normOf(node: u32): f32 {
  return load<f32>(norms + (<usize>node << 2));
}

/** The int8 estimate of a row's similarity to the quantised query (vector-int8.ts's formula). */
function similarityInt8(node: u32): f32 {
  const p = codeParams + <usize>node * <usize>INT8_PARAM_BYTES;
  const s = load<f32>(p);
  const o = load<f32>(p, 4);
  const d = <f32>dotI8(codes + <usize>node * <usize>dims, queryCodes, dims);
  const dot: f32 = queryScale * s * d + queryScale * o * querySum + queryOffset * s * <f32>load<i32>(p, 8) + <f32>dims * queryOffset * o;
  if (metric == METRIC_DOT) return dot;
  const rowNorm = load<f32>(p, 12);
  if (metric == METRIC_COSINE) {
    const denom = queryNormI8 * rowNorm;
    return denom == 0 ? <f32>0 : dot / denom;
  }
  return -(queryNormI8 * queryNormI8 + rowNorm * rowNorm - <f32>2 * dot);
}

/** In an int8 walk or build, makes `node`'s codes the query the int8 estimate compares against. */
function aimAt(node: u32): void {
  if (codes == 0) return;
  const p = codeParams + <usize>node * <usize>INT8_PARAM_BYTES;
  queryCodes = codes + <usize>node * <usize>dims;
  queryScale = load<f32>(p);
  queryOffset = load<f32>(p, 4);
  querySum = <f32>load<i32>(p, 8);
  queryNormI8 = load<f32>(p, 12);
}

function similarity(query: usize, queryNorm: f32, node: u32): f32 {
  if (codes != 0) return similarityInt8(node);
  const row = rowOf(node);
  if (metric == METRIC_DOT) return dotF32(row, query, dims);
  if (metric == METRIC_COSINE) {
    const denom = queryNorm * normOf(node);
    return denom == 0 ? <f32>0 : dotF32(row, query, dims) / denom;
  }
  return -squaredL2F32(row, query, dims);
}

// @ts-ignore: decorator
@inline function listOf(node: u32, level: i32): usize {
  if (level == 0) return level0 + <usize>node * (<usize>(m0 + 1) << 2);
  const first = <usize>load<u32>(upperStart + (<usize>node << 2));
  return upper + (first + <usize>(level - 1)) * (<usize>(m + 1) << 2);
}

// @ts-ignore: decorator
@inline function seen(id: u32): bool {
  const word = visited + (<usize>(id >>> 5) << 2);
  const bit: u32 = 1 << (id & 31);
  const w = load<u32>(word);
  if (w & bit) return true;
  store<u32>(word, w | bit);
  return false;
}

// (sa, ia) ranks above (sb, ib): higher score, then lower id.
// @ts-ignore: decorator
@inline function above(sa: f32, ia: u32, sb: f32, ib: u32): bool {
  return sa > sb || (sa == sb && ia < ib);
}

// Binary heaps of pairs. `best` true: the root is the best pair (candidates to expand); false: the
// root is the worst pair (the results kept, evicted from the root).
function heapPush(base: usize, size: i32, score: f32, id: u32, best: bool): void {
  let i = size;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    const p = base + (<usize>parent << 3);
    const ps = load<f32>(p);
    const pid = load<u32>(p, 4);
    if (best ? !above(score, id, ps, pid) : !above(ps, pid, score, id)) break;
    const at = base + (<usize>i << 3);
    store<f32>(at, ps);
    store<u32>(at, pid, 4);
    i = parent;
  }
  const at = base + (<usize>i << 3);
  store<f32>(at, score);
  store<u32>(at, id, 4);
}

/** Removes the root of a heap holding `size` pairs. */
function heapPop(base: usize, size: i32, best: bool): void {
  const n = size - 1;
  const last = base + (<usize>n << 3);
  const score = load<f32>(last);
  const id = load<u32>(last, 4);
  let i = 0;
  while (true) {
    let child = (i << 1) + 1;
    if (child >= n) break;
    let c = base + (<usize>child << 3);
    let cs = load<f32>(c);
    let cid = load<u32>(c, 4);
    if (child + 1 < n) {
      const r = c + 8;
      const rs = load<f32>(r);
      const rid = load<u32>(r, 4);
      if (best ? above(rs, rid, cs, cid) : above(cs, cid, rs, rid)) {
        child++;
        cs = rs;
        cid = rid;
      }
    }
    if (best ? !above(cs, cid, score, id) : !above(score, id, cs, cid)) break;
    const at = base + (<usize>i << 3);
    store<f32>(at, cs);
    store<u32>(at, cid, 4);
    i = child;
  }
  const at = base + (<usize>i << 3);
  store<f32>(at, score);
  store<u32>(at, id, 4);
}

let greedyNode: u32 = 0;
let greedyScore: f32 = 0;

/** Greedy descent on one upper level from (greedyNode, greedyScore), updating both. */
function greedy(query: usize, queryNorm: f32, level: i32): void {
  let changed = true;
  while (changed) {
    changed = false;
    const list = listOf(greedyNode, level);
    const n = load<u32>(list);
    for (let j: u32 = 0; j < n; j++) {
      const e = load<u32>(list + 4 + (<usize>j << 2));
      const s = similarity(query, queryNorm, e);
      if (above(s, e, greedyScore, greedyNode)) {
        greedyScore = s;
        greedyNode = e;
        changed = true;
      }
    }
  }
}

/**
 * Beam search of one level from an entry point, keeping the best `ef` nodes that pass the filter
 * in the results heap (worst at the root); returns how many it holds. Nodes the filter rejects are
 * still expanded, so a filter never disconnects the graph (hnswlib's rule).
 */
function searchLevel(query: usize, queryNorm: f32, entry: u32, entryScore: f32, ef: i32, level: i32, filterPtr: usize): i32 {
  memory.fill(visited, 0, <usize>visitedBytes);
  seen(entry);
  let cs = 0;
  let rs = 0;
  heapPush(candidates, cs++, entryScore, entry, true);
  if (bitsetHas(filterPtr, entry)) heapPush(results, rs++, entryScore, entry, false);
  while (cs > 0) {
    const cScore = load<f32>(candidates);
    const c = load<u32>(candidates, 4);
    if (rs >= ef && cScore < load<f32>(results)) break;
    heapPop(candidates, cs--, true);
    const list = listOf(c, level);
    const n = load<u32>(list);
    for (let j: u32 = 0; j < n; j++) {
      const e = load<u32>(list + 4 + (<usize>j << 2));
      if (seen(e)) continue;
      const s = similarity(query, queryNorm, e);
      if (rs < ef || s > load<f32>(results)) {
        heapPush(candidates, cs++, s, e, true);
        if (bitsetHas(filterPtr, e)) {
          heapPush(results, rs++, s, e, false);
          if (rs > ef) heapPop(results, rs--, false);
        }
      }
    }
  }
  return rs;
}

/** Empties the results heap into `out` best first; returns the count. */
function drainResults(size: i32, out: usize): i32 {
  for (let i = size - 1; i >= 0; i--) {
    const at = out + (<usize>i << 3);
    store<f32>(at, load<f32>(results));
    store<u32>(at, load<u32>(results, 4), 4);
    heapPop(results, i + 1, false);
  }
  return size;
}

/**
 * The selection heuristic (the paper's algorithm 4, as hnswlib runs it): walking candidates best
 * first, keep one only if it is closer to the base than to every neighbour kept so far, which
 * spreads links across directions instead of spending them all on one cluster. In an int8 build
 * it leaves the query aimed at the last candidate: callers aim again.
 */
function selectNeighbors(src: usize, n: i32, limit: i32, dst: usize): i32 {
  let kept = 0;
  for (let i = 0; i < n && kept < limit; i++) {
    const s = load<f32>(src + (<usize>i << 3));
    const c = load<u32>(src + (<usize>i << 3), 4);
    const row = rowOf(c);
    const cNorm = normOf(c);
    aimAt(c);
    let good = true;
    for (let j = 0; j < kept; j++) {
      if (similarity(row, cNorm, load<u32>(dst + (<usize>j << 3), 4)) > s) {
        good = false;
        break;
      }
    }
    if (good) {
      const at = dst + (<usize>kept << 3);
      store<f32>(at, s);
      store<u32>(at, c, 4);
      kept++;
    }
  }
  return kept;
}

/** Adds `node` to `target`'s list on `level`, re-selecting the list when it is full. */
function link(target: u32, node: u32, score: f32, level: i32): void {
  const limit = level == 0 ? m0 : m;
  const list = listOf(target, level);
  const n = <i32>load<u32>(list);
  if (n < limit) {
    store<u32>(list + 4 + (<usize>n << 2), node);
    store<u32>(list, n + 1);
    return;
  }
  const row = rowOf(target);
  const rowNorm = normOf(target);
  aimAt(target);
  // Insertion sort of the n + 1 candidates, best first, into bufA.
  for (let i = 0; i <= n; i++) {
    const id = i < n ? load<u32>(list + 4 + (<usize>i << 2)) : node;
    const s = i < n ? similarity(row, rowNorm, id) : score;
    let j = i;
    while (j > 0) {
      const prev = bufA + (<usize>(j - 1) << 3);
      if (!above(s, id, load<f32>(prev), load<u32>(prev, 4))) break;
      store<u64>(prev + 8, load<u64>(prev));
      j--;
    }
    store<f32>(bufA + (<usize>j << 3), s);
    store<u32>(bufA + (<usize>j << 3), id, 4);
  }
  const kept = selectNeighbors(bufA, n + 1, limit, bufB);
  for (let i = 0; i < kept; i++) store<u32>(list + 4 + (<usize>i << 2), load<u32>(bufB + (<usize>i << 3), 4));
  store<u32>(list, kept);
  aimAt(node);
}

function insert(node: u32, efConstruction: i32): void {
  const level = load<i32>(levels + (<usize>node << 2));
  const query = rowOf(node);
  const queryNorm = normOf(node);
  aimAt(node);
  const top = load<i32>(graph + H_TOP_LEVEL);
  if (top < 0) {
    store<u32>(graph + H_ENTRY, node);
    store<i32>(graph + H_TOP_LEVEL, level);
    return;
  }
  greedyNode = load<u32>(graph + H_ENTRY);
  greedyScore = similarity(query, queryNorm, greedyNode);
  for (let l = top; l > level; l--) greedy(query, queryNorm, l);
  for (let l = min(level, top); l >= 0; l--) {
    const found = drainResults(searchLevel(query, queryNorm, greedyNode, greedyScore, efConstruction, l, 0), bufA);
    const kept = selectNeighbors(bufA, found, m, bufB);
    aimAt(node);
    const list = listOf(node, l);
    for (let i = 0; i < kept; i++) store<u32>(list + 4 + (<usize>i << 2), load<u32>(bufB + (<usize>i << 3), 4));
    store<u32>(list, kept);
    // link() reuses both buffers: the nearest found is the next level's entry, so note it first.
    greedyScore = load<f32>(bufA);
    greedyNode = load<u32>(bufA, 4);
    for (let i = 0; i < kept; i++) {
      // bufB is overwritten by link, so read the pair from the node's own list.
      const e = load<u32>(list + 4 + (<usize>i << 2));
      link(e, node, similarity(query, queryNorm, e), l);
    }
  }
  if (level > top) {
    store<u32>(graph + H_ENTRY, node);
    store<i32>(graph + H_TOP_LEVEL, level);
  }
}

/**
 * Inserts nodes [start, end) in order. The host calls it in chunks (on a pool worker) so a long
 * build reports progress and can be abandoned between chunks. With `codesPtr` (the block's int8
 * codes and params) the build compares int8 estimates instead of f32 rows. Returns the nodes
 * inserted so far.
 */
export function hnswInsert(
  graphPtr: usize, vectorsPtr: usize, normsPtr: usize, start: i32, end: i32, scratchPtr: usize, codesPtr: usize, paramsPtr: usize,
): i32 {
  const efConstruction = load<i32>(graphPtr + H_EF_CONSTRUCTION);
  bind(graphPtr, vectorsPtr, normsPtr, scratchPtr, efConstruction);
  // With codes, every comparison of the build is the int8 estimate: a quarter of the bytes read.
  codes = codesPtr;
  codeParams = paramsPtr;
  for (let node = start; node < end; node++) insert(<u32>node, efConstruction);
  store<i32>(graphPtr + H_INSERTED, end);
  return end;
}

/**
 * The k best nodes that pass the filter, found by descending the upper levels greedily and a beam
 * of width max(ef, k) on level 0. Writes a top-k heap region (scores[k] then ids[k]) best first.
 * With `codesPtr` set (the block's int8 codes and params, and the query quantised the same way at
 * `queryCodesPtr` / `queryParamsPtr`), the walk compares int8 codes and the beam it ends with is
 * rescored in f32, so the scores returned are exact.
 */
export function hnswSearch(
  graphPtr: usize, vectorsPtr: usize, normsPtr: usize, queryPtr: usize, queryNorm: f32,
  ef: i32, filterPtr: usize, scratchPtr: usize, heapPtr: usize, k: i32,
  codesPtr: usize, paramsPtr: usize, queryCodesPtr: usize, queryParamsPtr: usize,
): i32 {
  const width = max(ef, k);
  bind(graphPtr, vectorsPtr, normsPtr, scratchPtr, width);
  const top = load<i32>(graphPtr + H_TOP_LEVEL);
  if (top < 0 || k < 1) return 0;
  if (codesPtr != 0) {
    codes = codesPtr;
    codeParams = paramsPtr;
    queryCodes = queryCodesPtr;
    queryScale = load<f32>(queryParamsPtr);
    queryOffset = load<f32>(queryParamsPtr, 4);
    querySum = <f32>load<i32>(queryParamsPtr, 8);
    queryNormI8 = load<f32>(queryParamsPtr, 12);
  }
  greedyNode = load<u32>(graphPtr + H_ENTRY);
  greedyScore = similarity(queryPtr, queryNorm, greedyNode);
  for (let l = top; l > 0; l--) greedy(queryPtr, queryNorm, l);
  const found = drainResults(searchLevel(queryPtr, queryNorm, greedyNode, greedyScore, width, 0, filterPtr), bufA);
  if (codes != 0) {
    // Exact scores for the beam, re-sorted best first (insertion sort: at most ef entries).
    codes = 0;
    for (let i = 0; i < found; i++) {
      const id = load<u32>(bufA + (<usize>i << 3), 4);
      const s = similarity(queryPtr, queryNorm, id);
      let j = i;
      while (j > 0) {
        const prev = bufA + (<usize>(j - 1) << 3);
        if (!above(s, id, load<f32>(prev), load<u32>(prev, 4))) break;
        store<u64>(prev + 8, load<u64>(prev));
        j--;
      }
      store<f32>(bufA + (<usize>j << 3), s);
      store<u32>(bufA + (<usize>j << 3), id, 4);
    }
  }
  const n = min(found, k);
  const ids = heapPtr + (<usize>k << 2);
  for (let i = 0; i < n; i++) {
    store<f32>(heapPtr + (<usize>i << 2), load<f32>(bufA + (<usize>i << 3)));
    store<u32>(ids + (<usize>i << 2), load<u32>(bufA + (<usize>i << 3), 4));
  }
  return n;
}
