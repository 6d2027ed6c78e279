import { topKBegin, topKOffer, topKFinish } from "./top-k";
import { bitsetHas } from "./bitset";

// Three ways to combine one query's terms over several fields (`fieldMode`):
//   0 sum:  every (term, field) entry adds its own saturated BM25 score (Lucene's BooleanQuery).
//   1 bm25f: per query term, the fields' tf, each weighted by its boost and length-normalised by
//           its own length and average, are summed into one pseudo-frequency that saturates once,
//           times one idf (Robertson's BM25F; Lucene's CombinedFieldQuery).
//   2 best: per field, the whole query's BM25 score; the document's score is the best field's
//           plus `tie` times the others' (dis-max, Elasticsearch's multi_match best_fields).
//
// Scratch layout for one segment of `docCount` documents:
//   f32 scores[docCount] | u16 matchCounts[docCount] | u16 lastTerm[docCount]       (8 bytes/doc)
// and, for modes 1 and 2, after it:
//   f32 group[docCount] | u32 touched[docCount] | f32 best[docCount]               (12 bytes/doc)
// then the u32 match total. lastTerm remembers which query term last touched a document, so a
// term looked up in several fields counts as one match (entries of one term are contiguous).
//
// A query is described by a term table the host writes into scratch, 32 bytes per entry:
//   u32 docsPtr, u32 tfsPtr, u32 postingCount, u32 docLengthsPtr, f32 avgdl, f32 weight,
//   u32 term (index of the query term, for match counting), u32 aux
// weight is idf * boost in modes 0 and 2 and the field's boost in mode 1; aux is the term's idf
// (f32) in mode 1 and the field's group number (u32, 0..groups-1) in mode 2.

export const BM25_TERM_ENTRY_BYTES: i32 = 32;

/** Scratch bytes per document for a field mode. */
export function bm25ScratchPerDoc(fieldMode: i32): i32 {
  return fieldMode == 0 ? 8 : 20;
}

@inline
function markMatch(counts: usize, lastTerm: usize, d: u32, termMark: u16): bool {
  const mp = lastTerm + (<usize>d << 1);
  if (load<u16>(mp) == termMark) return false;
  store<u16>(mp, termMark);
  const cp = counts + (<usize>d << 1);
  store<u16>(cp, load<u16>(cp) + 1);
  return true;
}

function accumulate(
  scores: usize, counts: usize, lastTerm: usize,
  docs: usize, tfs: usize, n: i32, docLengths: usize,
  k1: f32, b: f32, avgdl: f32, weight: f32, termMark: u16,
): void {
  // Hoisted per term; the reference evaluates the same f32 expressions in the same order.
  const k1p1: f32 = k1 + <f32>1;
  const oneMinusB: f32 = <f32>1 - b;
  const bOverAvgdl: f32 = b / avgdl;
  for (let i = 0; i < n; i++) {
    const at = <usize>i << 2;
    const d = load<u32>(docs + at);
    const tf = <f32>load<u32>(tfs + at);
    const dl = <f32>load<u32>(docLengths + (<usize>d << 2));
    const norm: f32 = k1 * (oneMinusB + bOverAvgdl * dl);
    const s: f32 = weight * (tf * k1p1) / (tf + norm);
    const sp = scores + (<usize>d << 2);
    store<f32>(sp, load<f32>(sp) + s);
    markMatch(counts, lastTerm, d, termMark);
  }
}

/** Mode 1: adds boost * tf / (1 - b + b * dl / avgdl) to the term's pseudo-frequency. */
function accumulateFrequency(
  group: usize, touched: usize, touchedCount: i32, counts: usize, lastTerm: usize,
  docs: usize, tfs: usize, n: i32, docLengths: usize,
  b: f32, avgdl: f32, boost: f32, termMark: u16,
): i32 {
  const oneMinusB: f32 = <f32>1 - b;
  const bOverAvgdl: f32 = b / avgdl;
  for (let i = 0; i < n; i++) {
    const at = <usize>i << 2;
    const d = load<u32>(docs + at);
    const tf = <f32>load<u32>(tfs + at);
    const dl = <f32>load<u32>(docLengths + (<usize>d << 2));
    const gp = group + (<usize>d << 2);
    store<f32>(gp, load<f32>(gp) + boost * tf / (oneMinusB + bOverAvgdl * dl));
    if (markMatch(counts, lastTerm, d, termMark)) {
      store<u32>(touched + (<usize>touchedCount << 2), d);
      touchedCount++;
    }
  }
  return touchedCount;
}

/** Mode 1: saturates each touched document's pseudo-frequency once and adds it to its score. */
function finishTerm(scores: usize, group: usize, touched: usize, touchedCount: i32, k1: f32, idf: f32): void {
  const k1p1: f32 = k1 + <f32>1;
  for (let i = 0; i < touchedCount; i++) {
    const d = load<u32>(touched + (<usize>i << 2));
    const gp = group + (<usize>d << 2);
    const tf = load<f32>(gp);
    store<f32>(gp, 0);
    const sp = scores + (<usize>d << 2);
    store<f32>(sp, load<f32>(sp) + idf * (tf * k1p1) / (tf + k1));
  }
}

/** Mode 2: one field's BM25 contributions into `group`, remembering the documents touched. */
function accumulateField(
  group: usize, touched: usize, touchedCount: i32,
  docs: usize, tfs: usize, n: i32, docLengths: usize,
  k1: f32, b: f32, avgdl: f32, weight: f32,
): i32 {
  const k1p1: f32 = k1 + <f32>1;
  const oneMinusB: f32 = <f32>1 - b;
  const bOverAvgdl: f32 = b / avgdl;
  for (let i = 0; i < n; i++) {
    const at = <usize>i << 2;
    const d = load<u32>(docs + at);
    const tf = <f32>load<u32>(tfs + at);
    const dl = <f32>load<u32>(docLengths + (<usize>d << 2));
    const norm: f32 = k1 * (oneMinusB + bOverAvgdl * dl);
    const s: f32 = weight * (tf * k1p1) / (tf + norm);
    const gp = group + (<usize>d << 2);
    const before = load<f32>(gp);
    if (before == 0 && s > 0) {
      store<u32>(touched + (<usize>touchedCount << 2), d);
      touchedCount++;
    }
    store<f32>(gp, before + s);
  }
  return touchedCount;
}

/** Mode 2: a field's per-document scores into the running sum and best. */
function finishField(scores: usize, group: usize, best: usize, touched: usize, touchedCount: i32): void {
  for (let i = 0; i < touchedCount; i++) {
    const d = load<u32>(touched + (<usize>i << 2));
    const gp = group + (<usize>d << 2);
    const v = load<f32>(gp);
    store<f32>(gp, 0);
    const sp = scores + (<usize>d << 2);
    store<f32>(sp, load<f32>(sp) + v);
    const bp = best + (<usize>d << 2);
    if (v > load<f32>(bp)) store<f32>(bp, v);
  }
}

/**
 * Scores one segment: clears the accumulators, adds every term table entry as `fieldMode` says,
 * then keeps the best k documents that matched at least `minMatch` distinct terms and pass the
 * filter. `groups` is the number of field groups (mode 2), `tie` the dis-max tie-breaker.
 */
export function bm25Search(
  termTablePtr: usize, termCount: i32, k1: f32, b: f32,
  docCount: i32, scratchPtr: usize, minMatch: i32, filterPtr: usize, heapPtr: usize, k: i32,
  fieldMode: i32, groups: i32, tie: f32,
): i32 {
  const scores = scratchPtr;
  const counts = scores + (<usize>docCount << 2);
  const lastTerm = counts + (<usize>docCount << 1);
  const group = lastTerm + (<usize>docCount << 1);
  const touched = group + (<usize>docCount << 2);
  const best = touched + (<usize>docCount << 2);
  memory.fill(scratchPtr, 0, <usize>docCount * <usize>bm25ScratchPerDoc(fieldMode));
  if (fieldMode == 1) {
    let t = 0;
    while (t < termCount) {
      const first = termTablePtr + <usize>t * <usize>BM25_TERM_ENTRY_BYTES;
      const term = load<u32>(first, 24);
      const idf = load<f32>(first, 28);
      let touchedCount = 0;
      while (t < termCount) {
        const e = termTablePtr + <usize>t * <usize>BM25_TERM_ENTRY_BYTES;
        if (load<u32>(e, 24) != term) break;
        touchedCount = accumulateFrequency(
          group, touched, touchedCount, counts, lastTerm,
          <usize>load<u32>(e), <usize>load<u32>(e, 4), load<i32>(e, 8), <usize>load<u32>(e, 12),
          b, load<f32>(e, 16), load<f32>(e, 20), <u16>(term + 1),
        );
        t++;
      }
      finishTerm(scores, group, touched, touchedCount, k1, idf);
    }
  } else if (fieldMode == 2) {
    // Matches are counted per term in table order; scores are gathered one field at a time.
    for (let t = 0; t < termCount; t++) {
      const e = termTablePtr + <usize>t * <usize>BM25_TERM_ENTRY_BYTES;
      const docs = <usize>load<u32>(e);
      const n = load<i32>(e, 8);
      const mark = <u16>(load<u32>(e, 24) + 1);
      for (let i = 0; i < n; i++) markMatch(counts, lastTerm, load<u32>(docs + (<usize>i << 2)), mark);
    }
    for (let g = 0; g < groups; g++) {
      let touchedCount = 0;
      for (let t = 0; t < termCount; t++) {
        const e = termTablePtr + <usize>t * <usize>BM25_TERM_ENTRY_BYTES;
        if (load<i32>(e, 28) != g) continue;
        touchedCount = accumulateField(
          group, touched, touchedCount,
          <usize>load<u32>(e), <usize>load<u32>(e, 4), load<i32>(e, 8), <usize>load<u32>(e, 12),
          k1, b, load<f32>(e, 16), load<f32>(e, 20),
        );
      }
      finishField(scores, group, best, touched, touchedCount);
    }
  } else {
    for (let t = 0; t < termCount; t++) {
      const e = termTablePtr + <usize>t * <usize>BM25_TERM_ENTRY_BYTES;
      accumulate(
        scores, counts, lastTerm,
        <usize>load<u32>(e), <usize>load<u32>(e, 4), load<i32>(e, 8), <usize>load<u32>(e, 12),
        k1, b, load<f32>(e, 16), load<f32>(e, 20), <u16>(load<u32>(e, 24) + 1),
      );
    }
  }
  topKBegin<f32>(heapPtr, k);
  const need = <u16>minMatch;
  // Every match is counted, not only the k kept: the caller reports the total hits.
  let total: u32 = 0;
  for (let d = 0; d < docCount; d++) {
    if (load<u16>(counts + (<usize>d << 1)) < need) continue;
    if (!bitsetHas(filterPtr, <u32>d)) continue;
    total++;
    let score = load<f32>(scores + (<usize>d << 2));
    if (fieldMode == 2) {
      const top = load<f32>(best + (<usize>d << 2));
      score = top + tie * (score - top);
    }
    topKOffer<f32>(score, <u32>d);
  }
  store<u32>(scratchPtr + <usize>docCount * <usize>bm25ScratchPerDoc(fieldMode), total);
  return topKFinish<f32>();
}
