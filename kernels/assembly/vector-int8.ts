import { topKBegin, topKOffer, topKFinish } from "./top-k";
import { bitsetHas } from "./bitset";
import { METRIC_COSINE, METRIC_DOT, METRIC_EUCLIDEAN } from "./metric";

// Scalar quantisation, one scale and offset per row: x[i] ~= scale * code[i] + offset with codes in
// [-128, 127]. The query is quantised the same way, so a row's approximate dot product is
//   qs*s*D + qs*o*sum(qc) + qo*s*sum(c) + dims*qo*o,   D = sum(qc[i] * c[i]) (exact in i32)
// and the inner loop is integer SIMD over a quarter of the f32 bytes.
//
// The inner loop is bound by its multiplies: i32x4.dot_i16x8_s (pmaddwd) is 8 multiplies plus the
// pairwise sum and the widening to i32 in one instruction, and baseline wasm SIMD has no 16-lane
// byte multiply (pmaddubsw is only reachable through relaxed SIMD, off by default in Node 20).
// Accumulating i16x8.extmul_low/high_i8x16_s products in i16 before widening still issues one
// multiply per 8 codes and adds the high-half extensions: measured 1.65x slower per row than the
// loop below (bench/README.md). What does pay is doing less around the multiplies: the query is
// widened to i16 once (widenInt8), and scans take two rows per pass when both pass the filter.
//
// Per-row parameters are interleaved, 16 bytes per row, so a row costs one extra cache stream:
//   f32 scale | f32 offset | i32 code sum | f32 L2 norm of the f32 row
export const INT8_PARAM_BYTES: i32 = 16;

/**
 * Quantises rows [start, end) into codes (dims bytes per row) and params. Rounding is
 * floor(t + 0.5) so the reference can reproduce it exactly.
 */
export function quantizeInt8(
  vectorsPtr: usize, normsPtr: usize, dims: i32, start: i32, end: i32, codesPtr: usize, paramsPtr: usize,
): void {
  for (let r = start; r < end; r++) {
    const row = vectorsPtr + <usize>r * (<usize>dims << 2);
    let lo = Infinity as f32;
    let hi = -Infinity as f32;
    for (let i = 0; i < dims; i++) {
      const x = load<f32>(row + (<usize>i << 2));
      lo = min(lo, x);
      hi = max(hi, x);
    }
    if (dims == 0) { lo = 0; hi = 0; }
    const scale: f32 = (hi - lo) / <f32>255;
    const codes = codesPtr + <usize>r * <usize>dims;
    let sum: i32 = 0;
    for (let i = 0; i < dims; i++) {
      let code: i32 = -128;
      if (scale > 0) {
        const t: f32 = (load<f32>(row + (<usize>i << 2)) - lo) / scale;
        code = min(<i32>Mathf.floor(t + <f32>0.5), 255) - 128;
      }
      store<i8>(codes + <usize>i, <i8>code);
      sum += code;
    }
    const p = paramsPtr + <usize>r * <usize>INT8_PARAM_BYTES;
    store<f32>(p, scale);
    store<f32>(p, lo + <f32>128 * scale, 4);
    store<i32>(p, sum, 8);
    store<f32>(p, load<f32>(normsPtr + (<usize>r << 2)), 12);
  }
}

// Loading 8 codes sign-extended to i16 lanes (one instruction) and multiplying pairwise into i32
// lanes (i32x4.dot_i16x8_s) is the cheapest exact i8 x i8 dot product baseline SIMD offers; the
// graph walk (hnsw.ts) compares rows with it.
// @ts-ignore: decorator
@inline export function dotI8(a: usize, b: usize, dims: i32): i32 {
  let acc0 = i32x4.splat(0);
  let acc1 = i32x4.splat(0);
  let i = 0;
  for (; i + 32 <= dims; i += 32) {
    const pa = a + <usize>i;
    const pb = b + <usize>i;
    acc0 = i32x4.add(acc0, i32x4.dot_i16x8_s(v128.load8x8_s(pa), v128.load8x8_s(pb)));
    acc1 = i32x4.add(acc1, i32x4.dot_i16x8_s(v128.load8x8_s(pa, 8), v128.load8x8_s(pb, 8)));
    acc0 = i32x4.add(acc0, i32x4.dot_i16x8_s(v128.load8x8_s(pa, 16), v128.load8x8_s(pb, 16)));
    acc1 = i32x4.add(acc1, i32x4.dot_i16x8_s(v128.load8x8_s(pa, 24), v128.load8x8_s(pb, 24)));
  }
  for (; i + 8 <= dims; i += 8) {
    acc0 = i32x4.add(acc0, i32x4.dot_i16x8_s(v128.load8x8_s(a + <usize>i), v128.load8x8_s(b + <usize>i)));
  }
  const acc = i32x4.add(acc0, acc1);
  let sum = i32x4.extract_lane(acc, 0) + i32x4.extract_lane(acc, 1)
    + i32x4.extract_lane(acc, 2) + i32x4.extract_lane(acc, 3);
  for (; i < dims; i++) {
    sum += <i32>load<i8>(a + <usize>i) * <i32>load<i8>(b + <usize>i);
  }
  return sum;
}

/** Sign-extends the query's dims i8 codes to i16 at `widePtr` (2 * dims bytes), once per query. */
export function widenInt8(codesPtr: usize, dims: i32, widePtr: usize): void {
  for (let i = 0; i < dims; i++) {
    store<i16>(widePtr + (<usize>i << 1), <i16>load<i8>(codesPtr + <usize>i));
  }
}

// The scan's dot product against a query already widened to i16 (widenInt8): per 8 codes, one
// sign-extending load of the row, one i32x4.dot_i16x8_s with the query lanes loaded as they are,
// one add. The query side's extension is done once per query instead of once per row, a quarter of
// the inner loop's instructions. Exact, as dotI8: a lane's pairwise sum is at most 2 * 128 * 128 =
// 2^15 in magnitude, so the result is at most dims * 2^14 and fits i32 for any dims below 2^17.
// @ts-ignore: decorator
@inline export function dotI8Wide(row: usize, wide: usize, dims: i32): i32 {
  let acc0 = i32x4.splat(0);
  let acc1 = i32x4.splat(0);
  let i = 0;
  for (; i + 32 <= dims; i += 32) {
    const pr = row + <usize>i;
    const pq = wide + (<usize>i << 1);
    acc0 = i32x4.add(acc0, i32x4.dot_i16x8_s(v128.load8x8_s(pr), v128.load(pq)));
    acc1 = i32x4.add(acc1, i32x4.dot_i16x8_s(v128.load8x8_s(pr, 8), v128.load(pq, 16)));
    acc0 = i32x4.add(acc0, i32x4.dot_i16x8_s(v128.load8x8_s(pr, 16), v128.load(pq, 32)));
    acc1 = i32x4.add(acc1, i32x4.dot_i16x8_s(v128.load8x8_s(pr, 24), v128.load(pq, 48)));
  }
  for (; i + 8 <= dims; i += 8) {
    acc0 = i32x4.add(acc0, i32x4.dot_i16x8_s(v128.load8x8_s(row + <usize>i), v128.load(wide + (<usize>i << 1))));
  }
  const acc = i32x4.add(acc0, acc1);
  let sum = i32x4.extract_lane(acc, 0) + i32x4.extract_lane(acc, 1)
    + i32x4.extract_lane(acc, 2) + i32x4.extract_lane(acc, 3);
  for (; i < dims; i++) {
    sum += <i32>load<i8>(row + <usize>i) * <i32>load<i16>(wide + (<usize>i << 1));
  }
  return sum;
}

// Two consecutive rows against the query in one pass, so each query load serves two rows and the
// loop overhead is paid once for both. Returns row a's sum in the low 32 bits, row b's in the high.
// @ts-ignore: decorator
@inline function dotI8WidePair(a: usize, b: usize, wide: usize, dims: i32): u64 {
  let a0 = i32x4.splat(0);
  let a1 = i32x4.splat(0);
  let b0 = i32x4.splat(0);
  let b1 = i32x4.splat(0);
  let i = 0;
  for (; i + 16 <= dims; i += 16) {
    const pa = a + <usize>i;
    const pb = b + <usize>i;
    const pq = wide + (<usize>i << 1);
    const q0 = v128.load(pq);
    const q1 = v128.load(pq, 16);
    a0 = i32x4.add(a0, i32x4.dot_i16x8_s(v128.load8x8_s(pa), q0));
    b0 = i32x4.add(b0, i32x4.dot_i16x8_s(v128.load8x8_s(pb), q0));
    a1 = i32x4.add(a1, i32x4.dot_i16x8_s(v128.load8x8_s(pa, 8), q1));
    b1 = i32x4.add(b1, i32x4.dot_i16x8_s(v128.load8x8_s(pb, 8), q1));
  }
  if (i + 8 <= dims) {
    const q0 = v128.load(wide + (<usize>i << 1));
    a0 = i32x4.add(a0, i32x4.dot_i16x8_s(v128.load8x8_s(a + <usize>i), q0));
    b0 = i32x4.add(b0, i32x4.dot_i16x8_s(v128.load8x8_s(b + <usize>i), q0));
    i += 8;
  }
  const va = i32x4.add(a0, a1);
  const vb = i32x4.add(b0, b1);
  let sa = i32x4.extract_lane(va, 0) + i32x4.extract_lane(va, 1)
    + i32x4.extract_lane(va, 2) + i32x4.extract_lane(va, 3);
  let sb = i32x4.extract_lane(vb, 0) + i32x4.extract_lane(vb, 1)
    + i32x4.extract_lane(vb, 2) + i32x4.extract_lane(vb, 3);
  for (; i < dims; i++) {
    const q = <i32>load<i16>(wide + (<usize>i << 1));
    sa += <i32>load<i8>(a + <usize>i) * q;
    sb += <i32>load<i8>(b + <usize>i) * q;
  }
  return <u64><u32>sa | (<u64><u32>sb << 32);
}

// One loop per metric: `metric` is a constant at each inlined call site, so the per-row branches
// fold away.
// @ts-ignore: decorator
@inline function scanLoop(
  metric: i32, codesPtr: usize, paramsPtr: usize, dims: i32, start: i32, end: i32,
  queryWidePtr: usize, queryParamsPtr: usize, filterPtr: usize,
): void {
  const queryScale = load<f32>(queryParamsPtr);
  const queryOffset = load<f32>(queryParamsPtr, 4);
  const querySum = <f32>load<i32>(queryParamsPtr, 8);
  const queryNorm = load<f32>(queryParamsPtr, 12);
  const dimsOffset: f32 = <f32>dims * queryOffset;
  const queryNormSq: f32 = queryNorm * queryNorm;
  // Rows two at a time when both pass the filter (always, without one); a pair with one row
  // filtered out, and an odd last row, go through the single-row loop. Offers stay in row order.
  let r = start;
  for (; r + 2 <= end; r += 2) {
    const hasA = bitsetHas(filterPtr, <u32>r);
    const hasB = bitsetHas(filterPtr, <u32>(r + 1));
    const row = codesPtr + <usize>r * <usize>dims;
    if (hasA && hasB) {
      const pair = dotI8WidePair(row, row + <usize>dims, queryWidePtr, dims);
      offerRow(metric, paramsPtr, r, <i32><u32>pair, queryScale, queryOffset, querySum, queryNorm, dimsOffset, queryNormSq);
      offerRow(metric, paramsPtr, r + 1, <i32>(pair >> 32), queryScale, queryOffset, querySum, queryNorm, dimsOffset, queryNormSq);
    } else if (hasA) {
      const d = dotI8Wide(row, queryWidePtr, dims);
      offerRow(metric, paramsPtr, r, d, queryScale, queryOffset, querySum, queryNorm, dimsOffset, queryNormSq);
    } else if (hasB) {
      const d = dotI8Wide(row + <usize>dims, queryWidePtr, dims);
      offerRow(metric, paramsPtr, r + 1, d, queryScale, queryOffset, querySum, queryNorm, dimsOffset, queryNormSq);
    }
  }
  if (r < end && bitsetHas(filterPtr, <u32>r)) {
    const d = dotI8Wide(codesPtr + <usize>r * <usize>dims, queryWidePtr, dims);
    offerRow(metric, paramsPtr, r, d, queryScale, queryOffset, querySum, queryNorm, dimsOffset, queryNormSq);
  }
}

// A row's approximate score from its exact code dot product d, offered to the top-k.
// @ts-ignore: decorator
@inline function offerRow(
  metric: i32, paramsPtr: usize, r: i32, d: i32, queryScale: f32, queryOffset: f32, querySum: f32,
  queryNorm: f32, dimsOffset: f32, queryNormSq: f32,
): void {
  const p = paramsPtr + <usize>r * <usize>INT8_PARAM_BYTES;
  const s = load<f32>(p);
  const o = load<f32>(p, 4);
  const rowSum = <f32>load<i32>(p, 8);
  const dot: f32 = queryScale * s * <f32>d + queryScale * o * querySum + queryOffset * s * rowSum + dimsOffset * o;
  let score = dot;
  if (metric == METRIC_COSINE) {
    const denom = queryNorm * load<f32>(p, 12);
    score = denom == 0 ? <f32>0 : dot / denom;
  } else if (metric == METRIC_EUCLIDEAN) {
    const rowNorm = load<f32>(p, 12);
    score = -(queryNormSq + rowNorm * rowNorm - <f32>2 * dot);
  }
  topKOffer<f32>(score, <u32>r);
}

/**
 * Approximate scores for rows [start, end) from their int8 codes, keeping the best k as rescoring
 * candidates. The query's params are laid out like a row's; its codes come widened to i16
 * (widenInt8).
 */
export function scanInt8(
  codesPtr: usize, paramsPtr: usize, dims: i32, start: i32, end: i32,
  queryWidePtr: usize, queryParamsPtr: usize, metric: i32, filterPtr: usize, heapPtr: usize, k: i32,
): i32 {
  topKBegin<f32>(heapPtr, k);
  if (metric == METRIC_DOT) {
    scanLoop(METRIC_DOT, codesPtr, paramsPtr, dims, start, end, queryWidePtr, queryParamsPtr, filterPtr);
  } else if (metric == METRIC_COSINE) {
    scanLoop(METRIC_COSINE, codesPtr, paramsPtr, dims, start, end, queryWidePtr, queryParamsPtr, filterPtr);
  } else {
    scanLoop(METRIC_EUCLIDEAN, codesPtr, paramsPtr, dims, start, end, queryWidePtr, queryParamsPtr, filterPtr);
  }
  return topKFinish<f32>();
}
