import type { TopK } from '../top-k.js';

export interface Scored {
  id: number;
  score: number;
}

/** Sorts everything, best first (score descending, id ascending), drops NaN, keeps k. */
export function topKBySort(entries: Scored[], k: number): TopK {
  const sorted = entries
    .filter((e) => !Number.isNaN(e.score))
    .sort((a, b) => b.score - a.score || a.id - b.id)
    .slice(0, k);
  return { ids: Uint32Array.from(sorted, (e) => e.id), scores: Float32Array.from(sorted, (e) => e.score) };
}
