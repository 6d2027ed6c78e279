import type { Metric } from '../metric.js';
import type { TopK } from '../top-k.js';
import { quantizeRow, type QuantizedRow } from './quantize-int8.js';
import { topKBySort, type Scored } from './top-k.js';
import { exactScore, norm, row, type ReferenceVectorQuery } from './vector-search.js';

const f = Math.fround;

export interface ReferenceQuantizedQuery extends ReferenceVectorQuery {
  /** How many approximate winners are rescored exactly. */
  candidates: number;
}

/**
 * The approximate score from codes: q.x ~= sum (qs*qc + qo)(s*c + o), expanded as the kernel does
 * and evaluated in the same f32 steps, so candidates match the kernel exactly.
 */
export function approximateScore(metric: Metric, query: QuantizedRow, queryNorm: number, x: QuantizedRow, rowNorm: number): number {
  let d = 0;
  for (let i = 0; i < x.codes.length; i++) d += query.codes[i]! * x.codes[i]!;
  const dims = x.codes.length;
  const t1 = f(f(query.scale * x.scale) * f(d));
  const t2 = f(f(query.scale * x.offset) * f(query.sum));
  const t3 = f(f(query.offset * x.scale) * f(x.sum));
  const t4 = f(f(dims * query.offset) * x.offset);
  const dot = f(f(f(t1 + t2) + t3) + t4);
  if (metric === 'dot') return dot;
  if (metric === 'cosine') {
    const denom = f(queryNorm * rowNorm);
    return denom === 0 ? 0 : f(dot / denom);
  }
  return -f(f(f(queryNorm * queryNorm) + f(rowNorm * rowNorm)) - f(2 * dot));
}

/** Quantises everything, keeps the best `candidates` by approximate score, rescores them exactly. */
export function quantizedVectorSearch(q: ReferenceQuantizedQuery): TopK {
  const count = q.vectors.length / q.dims;
  const query = quantizeRow(q.query);
  const queryNorm = norm(q.query);
  const approx: Scored[] = [];
  for (let i = 0; i < count; i++) {
    if (q.allowed && !q.allowed(i)) continue;
    const x = row(q.vectors, q.dims, i);
    approx.push({ id: i, score: approximateScore(q.metric, query, queryNorm, quantizeRow(x), norm(x)) });
  }
  const candidates = topKBySort(approx, Math.max(q.candidates, q.k));
  const exact = Array.from(candidates.ids, (id) => ({ id, score: exactScore(q.metric, q.query, row(q.vectors, q.dims, id), queryNorm) }));
  return topKBySort(exact, q.k);
}
