import type { TopK } from '../top-k.js';
import { topKBySort } from './top-k.js';

const f = Math.fround;

export interface ReferenceBm25Term {
  docs: ArrayLike<number>;
  tfs: ArrayLike<number>;
  docLengths: ArrayLike<number>;
  avgdl: number;
  idf: number;
  boost?: number;
  term?: number;
  field?: number;
}

export interface ReferenceBm25Segment {
  docBase: number;
  docCount: number;
  terms: ReferenceBm25Term[];
  allowed?: (ordinal: number) => boolean;
}

export interface ReferenceBm25Query {
  segments: ReferenceBm25Segment[];
  k: number;
  k1?: number;
  b?: number;
  minimumShouldMatch?: number;
  fieldScoring?: 'sum' | 'bm25f' | 'best';
  tieBreaker?: number;
}

/**
 * One posting's BM25 contribution: idf * boost * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl)),
 * in f32 steps in the kernel's order so scores match it bit for bit.
 */
export function bm25Contribution(tf: number, dl: number, k1: number, b: number, avgdl: number, weight: number): number {
  const k1f = f(k1);
  const norm = f(k1f * f(f(1 - f(b)) + f(f(f(b) / f(avgdl)) * f(dl))));
  return f(f(weight * f(tf * f(k1f + 1))) / f(tf + norm));
}

/** Per document: a score and the set of matched query terms, in Maps; then filter and sort. */
export function bm25Search(q: ReferenceBm25Query): TopK & { total: number } {
  const k1 = q.k1 ?? 1.2;
  const b = q.b ?? 0.75;
  const minMatch = q.minimumShouldMatch ?? 1;
  const results: { id: number; score: number }[] = [];
  for (const seg of q.segments) {
    const scores = new Map<number, number>();
    const matched = new Map<number, Set<number>>();
    if (q.fieldScoring === 'bm25f' || q.fieldScoring === 'best') {
      combineFields(seg, q.fieldScoring, k1, b, q.tieBreaker ?? 0, scores, matched);
    } else
      seg.terms.forEach((t, j) => {
        const weight = f(f(t.idf) * f(t.boost ?? 1));
        for (let i = 0; i < t.docs.length; i++) {
          const d = t.docs[i]!;
          const s = bm25Contribution(t.tfs[i]!, t.docLengths[d]!, k1, b, t.avgdl, weight);
          scores.set(d, f((scores.get(d) ?? 0) + s));
          if (!matched.has(d)) matched.set(d, new Set());
          matched.get(d)!.add(t.term ?? j);
        }
      });
    for (const [d, score] of scores) {
      if (matched.get(d)!.size < minMatch) continue;
      if (seg.allowed && !seg.allowed(d)) continue;
      results.push({ id: seg.docBase + d, score });
    }
  }
  return { ...topKBySort(results, q.k), total: results.length };
}

/**
 * `bm25f` and `best` (see Bm25Query.fieldScoring), in plain f64 Maps: per term, the sum over its
 * fields of boost * tf / (1 - b + b * dl / avgdl) saturates once, times idf; or per field the
 * query's BM25 score, and the best field plus tieBreaker times the others.
 */
function combineFields(
  seg: ReferenceBm25Segment,
  how: 'bm25f' | 'best',
  k1: number,
  b: number,
  tie: number,
  scores: Map<number, number>,
  matched: Map<number, Set<number>>,
): void {
  const groups = new Map<number, Map<number, number>>();
  const idfs = new Map<number, number>();
  seg.terms.forEach((t, j) => {
    const key = how === 'bm25f' ? (t.term ?? j) : (t.field ?? 0);
    idfs.set(key, t.idf);
    if (!groups.has(key)) groups.set(key, new Map());
    const group = groups.get(key)!;
    for (let i = 0; i < t.docs.length; i++) {
      const d = t.docs[i]!;
      const tf = t.tfs[i]!;
      const dl = t.docLengths[d]!;
      const v =
        how === 'bm25f'
          ? ((t.boost ?? 1) * tf) / (1 - b + (b / t.avgdl) * dl)
          : (t.idf * (t.boost ?? 1) * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b / t.avgdl) * dl));
      group.set(d, (group.get(d) ?? 0) + v);
      if (!matched.has(d)) matched.set(d, new Set());
      matched.get(d)!.add(t.term ?? j);
    }
  });
  const best = new Map<number, number>();
  for (const [key, group] of groups) {
    for (const [d, v] of group) {
      const s = how === 'bm25f' ? (idfs.get(key)! * v * (k1 + 1)) / (v + k1) : v;
      scores.set(d, (scores.get(d) ?? 0) + s);
      if (how === 'best' && s > (best.get(d) ?? 0)) best.set(d, s);
    }
  }
  if (how === 'best') for (const [d, sum] of scores) scores.set(d, best.get(d)! + tie * (sum - best.get(d)!));
}
