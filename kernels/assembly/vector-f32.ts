import { topKBegin, topKOffer, topKFinish } from "./top-k";
import { bitsetHas } from "./bitset";
import { dotF32, squaredL2F32 } from "./f32-distance";
import { METRIC_COSINE, METRIC_DOT } from "./metric";

// Cosine against a zero vector is defined as 0 rather than NaN so such rows stay rankable.
// @ts-ignore: decorator
@inline function cosine(dot: f32, queryNorm: f32, rowNorm: f32): f32 {
  const denom = queryNorm * rowNorm;
  return denom == 0 ? <f32>0 : dot / denom;
}

// @ts-ignore: decorator
@inline function scoreRow(row: usize, query: usize, dims: i32, metric: i32, queryNorm: f32, rowNorm: f32): f32 {
  if (metric == METRIC_DOT) return dotF32(row, query, dims);
  if (metric == METRIC_COSINE) return cosine(dotF32(row, query, dims), queryNorm, rowNorm);
  return -squaredL2F32(row, query, dims);
}

/** Writes the L2 norm of rows [start, end) to norms[row]. Used at load time and for queries. */
export function normsF32(vectorsPtr: usize, dims: i32, start: i32, end: i32, normsPtr: usize): void {
  const stride = <usize>dims << 2;
  for (let i = start; i < end; i++) {
    const row = vectorsPtr + <usize>i * stride;
    store<f32>(normsPtr + (<usize>i << 2), Mathf.sqrt(dotF32(row, row, dims)));
  }
}

/**
 * Scores rows [start, end) of a block against a query and keeps the best k in the heap region.
 * Ids are row indexes within the block, so chunks of one block merge without translation.
 */
export function scanF32(
  vectorsPtr: usize, normsPtr: usize, dims: i32, start: i32, end: i32,
  queryPtr: usize, queryNorm: f32, metric: i32, filterPtr: usize, heapPtr: usize, k: i32,
): i32 {
  topKBegin<f32>(heapPtr, k);
  const stride = <usize>dims << 2;
  for (let i = start; i < end; i++) {
    if (!bitsetHas(filterPtr, <u32>i)) continue;
    const rowNorm = metric == METRIC_COSINE ? load<f32>(normsPtr + (<usize>i << 2)) : <f32>0;
    topKOffer<f32>(scoreRow(vectorsPtr + <usize>i * stride, queryPtr, dims, metric, queryNorm, rowNorm), <u32>i);
  }
  return topKFinish<f32>();
}

/** Exact f32 scores for a candidate list (the ids of an int8 scan), keeping the best k. */
export function rescoreF32(
  vectorsPtr: usize, normsPtr: usize, dims: i32, queryPtr: usize, queryNorm: f32, metric: i32,
  candidatesPtr: usize, candidateCount: i32, heapPtr: usize, k: i32,
): i32 {
  topKBegin<f32>(heapPtr, k);
  const stride = <usize>dims << 2;
  for (let c = 0; c < candidateCount; c++) {
    const i = load<u32>(candidatesPtr + (<usize>c << 2));
    const rowNorm = metric == METRIC_COSINE ? load<f32>(normsPtr + (<usize>i << 2)) : <f32>0;
    topKOffer<f32>(scoreRow(vectorsPtr + <usize>i * stride, queryPtr, dims, metric, queryNorm, rowNorm), i);
  }
  return topKFinish<f32>();
}
