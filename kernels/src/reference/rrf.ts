import type { TopK } from '../top-k.js';
import { topKBySort } from './top-k.js';

const f = Math.fround;

export interface ReferenceRrfQuery {
  lists: ArrayLike<number>[];
  k: number;
  weights?: number[];
  rankConstant?: number;
}

/** score(id) = sum over lists of weight / (rankConstant + rank), ranks from 1, in f32 steps. */
export function rrfFuse(q: ReferenceRrfQuery): TopK {
  const c = f(q.rankConstant ?? 60);
  const scores = new Map<number, number>();
  q.lists.forEach((list, l) => {
    const weight = f(q.weights?.[l] ?? 1);
    for (let i = 0; i < list.length; i++) {
      const id = list[i]!;
      scores.set(id, f((scores.get(id) ?? 0) + f(weight / f(c + (i + 1)))));
    }
  });
  return topKBySort(
    [...scores].map(([id, score]) => ({ id, score })),
    q.k,
  );
}
