import { topKBegin, topKOffer, topKFinish } from "./top-k";
import { bitsetHas } from "./bitset";

// Scratch layout for one segment of `docCount` documents (8 bytes per document):
//   f32 scores[docCount] | u16 matchCounts[docCount] | u16 lastTerm[docCount]
// lastTerm remembers which query term last touched a document, so a term that is looked up in
// several fields counts as one match.
//
// A query is described by a term table the host writes into scratch, 32 bytes per entry:
//   u32 docsPtr, u32 tfsPtr, u32 postingCount, u32 docLengthsPtr, f32 avgdl, f32 idf * boost,
//   u32 term (index of the query term, for match counting), u32 unused

export const BM25_TERM_ENTRY_BYTES: i32 = 32;

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
    const mp = lastTerm + (<usize>d << 1);
    if (load<u16>(mp) != termMark) {
      store<u16>(mp, termMark);
      const cp = counts + (<usize>d << 1);
      store<u16>(cp, load<u16>(cp) + 1);
    }
  }
}

/**
 * Scores one segment: clears the accumulators, adds every term table entry, then keeps the best k
 * documents that matched at least `minMatch` distinct terms and pass the filter.
 */
export function bm25Search(
  termTablePtr: usize, termCount: i32, k1: f32, b: f32,
  docCount: i32, scratchPtr: usize, minMatch: i32, filterPtr: usize, heapPtr: usize, k: i32,
): i32 {
  const scores = scratchPtr;
  const counts = scores + (<usize>docCount << 2);
  const lastTerm = counts + (<usize>docCount << 1);
  memory.fill(scratchPtr, 0, <usize>docCount << 3);
  for (let t = 0; t < termCount; t++) {
    const e = termTablePtr + <usize>t * <usize>BM25_TERM_ENTRY_BYTES;
    accumulate(
      scores, counts, lastTerm,
      <usize>load<u32>(e), <usize>load<u32>(e, 4), load<i32>(e, 8), <usize>load<u32>(e, 12),
      k1, b, load<f32>(e, 16), load<f32>(e, 20), <u16>(load<u32>(e, 24) + 1),
    );
  }
  topKBegin<f32>(heapPtr, k);
  const need = <u16>minMatch;
  // Every match is counted, not only the k kept: the caller reports the total hits.
  let total: u32 = 0;
  for (let d = 0; d < docCount; d++) {
    if (load<u16>(counts + (<usize>d << 1)) < need) continue;
    if (!bitsetHas(filterPtr, <u32>d)) continue;
    total++;
    topKOffer<f32>(load<f32>(scores + (<usize>d << 2)), <u32>d);
  }
  store<u32>(scratchPtr + (<usize>docCount << 3), total);
  return topKFinish<f32>();
}
