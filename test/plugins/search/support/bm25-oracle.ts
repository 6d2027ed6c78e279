import type { Analyzer } from '../../../../plugins/search/analysis/analyzer.js';
import type { QueryNode } from '../../../../plugins/search/query/query-ast.js';

/**
 * A plain in-memory BM25 engine, the oracle for the parser and analyzers until the real engine
 * exists: per-field postings with positions, per-field length norms and field boosts, and Lucene
 * BooleanQuery semantics for the query tree. Score of a term in a field:
 * boost * idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len / avgLen)), idf = ln(1 + (N - df + 0.5) / (df + 0.5)).
 * A phrase scores like a term whose tf is the phrase's frequency and whose idf is the sum of its terms' idfs.
 */
export interface OracleField {
  name: string;
  analyzer: Analyzer;
  /** @default 1 */
  boost?: number;
}

export interface Bm25Params {
  /** @default 1.2 */
  k1?: number;
  /** @default 0.75 */
  b?: number;
}

interface FieldIndex {
  field: OracleField;
  /** term -> doc -> positions */
  postings: Map<string, Map<number, number[]>>;
  lengths: Float64Array;
  avgLength: number;
}

export interface OracleIndex {
  ids: string[];
  fields: FieldIndex[];
}

type Scores = Map<number, number>;

export function buildOracleIndex(docs: ReadonlyArray<{ id: string } & Record<string, string>>, fields: OracleField[]): OracleIndex {
  const indexes = fields.map((field): FieldIndex => {
    const postings = new Map<string, Map<number, number[]>>();
    const lengths = new Float64Array(docs.length);
    docs.forEach((doc, d) => {
      const terms = field.analyzer.analyze(doc[field.name] ?? '');
      lengths[d] = terms.length;
      for (const { term, position } of terms) {
        let byDoc = postings.get(term);
        if (!byDoc) postings.set(term, (byDoc = new Map()));
        let positions = byDoc.get(d);
        if (!positions) byDoc.set(d, (positions = []));
        positions.push(position);
      }
    });
    const avgLength = docs.length ? lengths.reduce((a, b) => a + b, 0) / docs.length : 1;
    return { field, postings, lengths, avgLength: avgLength || 1 };
  });
  return { ids: docs.map((d) => d.id), fields: indexes };
}

/** The top `size` documents for `query`, best first; ties go to the earlier document. */
export function searchOracle(index: OracleIndex, query: QueryNode, size: number, params: Bm25Params = {}): Array<{ id: string; score: number }> {
  const scores = evaluate(index, query, { k1: params.k1 ?? 1.2, b: params.b ?? 0.75 });
  return [...scores]
    .sort((x, y) => y[1] - x[1] || x[0] - y[0])
    .slice(0, size)
    .map(([d, score]) => ({ id: index.ids[d]!, score }));
}

function evaluate(index: OracleIndex, node: QueryNode, p: Required<Bm25Params>): Scores {
  switch (node.type) {
    case 'all':
      return new Map(index.ids.map((_, d) => [d, 0]));
    case 'none':
      return new Map();
    case 'term':
    case 'phrase': {
      const out: Scores = new Map();
      for (const f of index.fields) {
        if (node.field !== undefined && node.field !== f.field.name) continue;
        const terms = node.type === 'term' ? [node.term] : node.terms;
        const offsets = node.type === 'term' ? [0] : node.positions;
        for (const [d, tf] of leafFrequencies(f, terms, offsets)) {
          const idf = terms.reduce((sum, t) => sum + idfOf(index, f, t), 0);
          const norm = p.k1 * (1 - p.b + (p.b * f.lengths[d]!) / f.avgLength);
          out.set(d, (out.get(d) ?? 0) + ((f.field.boost ?? 1) * idf * tf * (p.k1 + 1)) / (tf + norm));
        }
      }
      return out;
    }
    case 'bool':
      return evaluateBool(index, node, p);
  }
}

function idfOf(index: OracleIndex, f: FieldIndex, term: string): number {
  const df = f.postings.get(term)?.size ?? 0;
  return Math.log(1 + (index.ids.length - df + 0.5) / (df + 0.5));
}

/** doc -> how often the terms occur at the given relative offsets. */
function leafFrequencies(f: FieldIndex, terms: string[], offsets: number[]): Map<number, number> {
  const lists = terms.map((t) => f.postings.get(t));
  const out = new Map<number, number>();
  if (lists.some((l) => l === undefined)) return out;
  for (const [d, firstPositions] of lists[0]!) {
    if (terms.length === 1) {
      out.set(d, firstPositions.length);
      continue;
    }
    const others = lists.slice(1).map((l) => l!.get(d));
    if (others.some((o) => o === undefined)) continue;
    let tf = 0;
    for (const start of firstPositions) {
      if (others.every((positions, i) => positions!.includes(start + offsets[i + 1]! - offsets[0]!))) tf++;
    }
    if (tf > 0) out.set(d, tf);
  }
  return out;
}

function evaluateBool(index: OracleIndex, node: Extract<QueryNode, { type: 'bool' }>, p: Required<Bm25Params>): Scores {
  const musts = node.must.map((c) => evaluate(index, c, p));
  const shoulds = node.should.map((c) => evaluate(index, c, p));
  const required = node.minimumShouldMatch > 0 ? node.minimumShouldMatch : musts.length === 0 ? 1 : 0;
  let candidates: number[];
  if (musts.length > 0) {
    candidates = [...musts[0]!.keys()].filter((d) => musts.every((m) => m.has(d)));
  } else {
    candidates = [...new Set(shoulds.flatMap((s) => [...s.keys()]))];
  }
  const excluded = node.mustNot.map((c) => evaluate(index, c, p));
  const out: Scores = new Map();
  for (const d of candidates) {
    if (excluded.some((e) => e.has(d))) continue;
    let matched = 0;
    let score = 0;
    for (const m of musts) score += m.get(d)!;
    for (const s of shoulds) {
      const v = s.get(d);
      if (v !== undefined) {
        matched++;
        score += v;
      }
    }
    if (matched >= required) out.set(d, score);
  }
  return out;
}
