import type { Metric } from '../metric.js';
import type { TopK } from '../top-k.js';
import { topKBySort, type Scored } from './top-k.js';

const f = Math.fround;

export interface ReferenceVectorQuery {
  /** count * dims values, row-major. */
  vectors: ArrayLike<number>;
  dims: number;
  query: ArrayLike<number>;
  metric: Metric;
  k: number;
  allowed?: (id: number) => boolean;
}

/** Row i of a row-major matrix (a view when the matrix is a typed array). */
export function row(vectors: ArrayLike<number>, dims: number, i: number): ArrayLike<number> {
  if (vectors instanceof Float32Array || vectors instanceof Float64Array) return vectors.subarray(i * dims, (i + 1) * dims);
  return Array.from({ length: dims }, (_, j) => vectors[i * dims + j]!);
}

export const norm = (v: ArrayLike<number>): number => {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i]! * v[i]!;
  return f(Math.sqrt(sum));
};

export function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}

/**
 * The exact score of one row, in f64 and rounded to f32 once at the end of each step. Cosine
 * against a zero vector is 0. `queryNorm` may be passed when scoring many rows.
 */
export function exactScore(metric: Metric, query: ArrayLike<number>, x: ArrayLike<number>, queryNorm = norm(query)): number {
  if (metric === 'dot') return f(dot(query, x));
  if (metric === 'cosine') {
    const denom = f(queryNorm * norm(x));
    return denom === 0 ? 0 : f(f(dot(query, x)) / denom);
  }
  let sum = 0;
  for (let i = 0; i < x.length; i++) sum += (query[i]! - x[i]!) ** 2;
  return -f(sum);
}

/** Scores every row, sorts, keeps k. */
export function vectorSearch(q: ReferenceVectorQuery): TopK {
  const count = q.vectors.length / q.dims;
  const queryNorm = norm(q.query);
  const scored: Scored[] = [];
  for (let i = 0; i < count; i++) {
    if (q.allowed && !q.allowed(i)) continue;
    scored.push({ id: i, score: exactScore(q.metric, q.query, row(q.vectors, q.dims, i), queryNorm) });
  }
  return topKBySort(scored, q.k);
}
