import type { KernelMemory } from './kernel-memory.js';

/** A top-k answer, best first: score descending, then id ascending on ties. */
export interface TopK {
  ids: Uint32Array;
  scores: Float32Array;
}

/** The geo kernel's answer: the same heap with f64 scores. */
export interface TopK64 {
  ids: Uint32Array;
  scores: Float64Array;
}

export const emptyTopK = (): TopK => ({ ids: new Uint32Array(0), scores: new Float32Array(0) });

/** Bytes of a heap region for k entries: scores[k] (f32 or f64) then u32 ids[k]. */
export const topKBytes = (k: number): number => k * 8;
export const topK64Bytes = (k: number): number => k * 12;

/** Copies a finished f32 heap out of shared memory, adding `idBase` to every id. */
export function readTopK(memory: KernelMemory, heapOffset: number, capacity: number, count: number, idBase = 0): TopK {
  const first = heapOffset >>> 2;
  const scores = memory.f32.slice(first, first + count);
  const ids = memory.u32.slice(first + capacity, first + capacity + count);
  if (idBase !== 0) for (let i = 0; i < count; i++) ids[i] = ids[i]! + idBase;
  return { ids, scores };
}

export function readTopK64(memory: KernelMemory, heapOffset: number, capacity: number, count: number): TopK64 {
  const scores = memory.f64.slice(heapOffset >>> 3, (heapOffset >>> 3) + count);
  const idsAt = (heapOffset + capacity * 8) >>> 2;
  return { ids: memory.u32.slice(idsAt, idsAt + count), scores };
}

function merge<S extends Float32Array | Float64Array>(
  lists: readonly { ids: Uint32Array; scores: S }[],
  k: number,
  makeScores: (n: number) => S,
): { ids: Uint32Array; scores: S } {
  const cursors = lists.map(() => 0);
  let total = 0;
  for (const l of lists) total += l.ids.length;
  const n = Math.min(k, total);
  const ids = new Uint32Array(n);
  const scores = makeScores(n);
  for (let out = 0; out < n; out++) {
    let best = -1;
    for (let l = 0; l < lists.length; l++) {
      const c = cursors[l]!;
      const list = lists[l]!;
      if (c >= list.ids.length) continue;
      if (best < 0) {
        best = l;
        continue;
      }
      const bl = lists[best]!;
      const bc = cursors[best]!;
      const s = list.scores[c]!;
      const bs = bl.scores[bc]!;
      if (s > bs || (s === bs && list.ids[c]! < bl.ids[bc]!)) best = l;
    }
    const c = cursors[best]!;
    ids[out] = lists[best]!.ids[c]!;
    scores[out] = lists[best]!.scores[c]!;
    cursors[best] = c + 1;
  }
  return { ids, scores };
}

/**
 * Merges top-k lists (each sorted best first, ids disjoint) into one top k with the kernels' order.
 * Used to combine the chunks or segments of one query that ran on different workers, and by
 * callers that search several blocks.
 */
export function mergeTopK(lists: readonly TopK[], k: number): TopK {
  return merge(lists, k, (n) => new Float32Array(n));
}

export function mergeTopK64(lists: readonly TopK64[], k: number): TopK64 {
  return merge(lists, k, (n) => new Float64Array(n));
}
