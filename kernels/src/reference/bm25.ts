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
