// The one top-k heap every kernel selects with, generic over the score type: f32 for the search
// kernels, f64 for geo (whose chord lengths need more than f32's 24 bits to order far points).
// It lives in a caller-provided region laid out as T scores[cap] followed by u32 ids[cap], so
// kernels allocate nothing. While filling it is a min-heap whose root is the worst entry;
// `topKFinish` heap-sorts it in place, best first.
// Order: score descending, then id ascending on ties. NaN scores are never admitted.

let scoresPtr: usize = 0;
let idsPtr: usize = 0;
let size: i32 = 0;
let cap: i32 = 0;
// The root's score is cached because nearly every offer is rejected against it. f64 holds any f32
// exactly.
let rootScore: f64 = 0;

// @ts-ignore: decorator
@inline function scoreAt<T>(i: i32): T {
  return load<T>(scoresPtr + (<usize>i << alignof<T>()));
}

// @ts-ignore: decorator
@inline function idAt(i: i32): u32 {
  return load<u32>(idsPtr + (<usize>i << 2));
}

// @ts-ignore: decorator
@inline function put<T>(i: i32, score: T, id: u32): void {
  store<T>(scoresPtr + (<usize>i << alignof<T>()), score);
  store<u32>(idsPtr + (<usize>i << 2), id);
}

// True when (sa, ia) ranks below (sb, ib).
// @ts-ignore: decorator
@inline function worse<T>(sa: T, ia: u32, sb: T, ib: u32): bool {
  return sa < sb || (sa == sb && ia > ib);
}

function siftUp<T>(i: i32, score: T, id: u32): void {
  while (i > 0) {
    const parent = (i - 1) >> 1;
    const ps = scoreAt<T>(parent);
    const pid = idAt(parent);
    if (!worse<T>(score, id, ps, pid)) break;
    put<T>(i, ps, pid);
    i = parent;
  }
  put<T>(i, score, id);
}

function siftDown<T>(i: i32, n: i32, score: T, id: u32): void {
  while (true) {
    let child = (i << 1) + 1;
    if (child >= n) break;
    let cs = scoreAt<T>(child);
    let cid = idAt(child);
    const right = child + 1;
    if (right < n) {
      const rs = scoreAt<T>(right);
      const rid = idAt(right);
      if (worse<T>(rs, rid, cs, cid)) {
        child = right;
        cs = rs;
        cid = rid;
      }
    }
    if (!worse<T>(cs, cid, score, id)) break;
    put<T>(i, cs, cid);
    i = child;
  }
  put<T>(i, score, id);
}

/** Starts a selection of at most `k` entries in the region at `heapPtr` (k * (sizeof<T> + 4) bytes). */
export function topKBegin<T>(heapPtr: usize, k: i32): void {
  // The host validates k; this guards direct task submissions and proves abort reaches the host.
  if (k < 1) abort("top-k needs k >= 1");
  scoresPtr = heapPtr;
  idsPtr = heapPtr + (<usize>k << alignof<T>());
  size = 0;
  cap = k;
  rootScore = -Infinity;
}

/** Offers one candidate. Inlined into every scan loop; the common case is one compare. */
// @ts-ignore: decorator
@inline export function topKOffer<T>(score: T, id: u32): void {
  if (size < cap) {
    if (score == score) {
      siftUp<T>(size, score, id);
      size++;
      rootScore = <f64>scoreAt<T>(0);
    }
  } else if (<f64>score >= rootScore) {
    if (worse<T>(scoreAt<T>(0), idAt(0), score, id)) {
      siftDown<T>(0, size, score, id);
      rootScore = <f64>scoreAt<T>(0);
    }
  }
}

/** Sorts the selection best first in place and returns how many entries it holds. */
export function topKFinish<T>(): i32 {
  const n = size;
  for (let end = n - 1; end > 0; end--) {
    const s = scoreAt<T>(end);
    const id = idAt(end);
    put<T>(end, scoreAt<T>(0), idAt(0));
    siftDown<T>(0, end, s, id);
  }
  return n;
}
