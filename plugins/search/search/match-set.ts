import type { Deadline } from './deadline.js';
import { add, andInPlace, andNotInPlace, emptySet, fromSorted, fullSet, orInPlace, type Bitset } from '../index/bitset.js';
import type { QueryNode } from '../query/query-ast.js';
import { lookup, type SegmentData, type TextField } from '../index/segment.js';

/** Which fields a leaf without a `field` qualifier is looked up in. */
export interface FieldScope {
  fields: readonly string[];
}

/** Documents of `field` containing the phrase, with how often (phrase frequency). */
export function phraseMatches(text: TextField, terms: readonly string[], offsets: readonly number[]): Map<number, number> {
  const found = new Map<number, number>();
  const ranges = terms.map((t) => {
    const i = lookup(text.terms, t);
    return i === -1 ? undefined : { start: text.termStarts[i]!, end: text.termStarts[i + 1]! };
  });
  if (ranges.some((r) => r === undefined) || ranges.length === 0) return found;
  // Walk the rarest term's postings and check the others at the same document.
  const first = ranges[0]!;
  for (let p = first.start; p < first.end; p++) {
    const doc = text.docs[p]!;
    const others: Array<{ posStart: number; posEnd: number }> = [];
    let all = true;
    for (let t = 1; t < ranges.length; t++) {
      const r = ranges[t]!;
      const q = binarySearch(text.docs, r.start, r.end, doc);
      if (q === -1) {
        all = false;
        break;
      }
      others.push({ posStart: text.posStarts[q]!, posEnd: text.posStarts[q + 1]! });
    }
    if (!all) continue;
    let freq = 0;
    for (let i = text.posStarts[p]!; i < text.posStarts[p + 1]!; i++) {
      const anchor = text.positions[i]! - offsets[0]!;
      let ok = true;
      for (let t = 1; t < ranges.length && ok; t++) {
        const o = others[t - 1]!;
        ok = binarySearch(text.positions, o.posStart, o.posEnd, anchor + offsets[t]!) !== -1;
      }
      if (ok) freq++;
    }
    if (freq > 0) found.set(doc, freq);
  }
  return found;
}

function binarySearch(sorted: Uint32Array, start: number, end: number, value: number): number {
  let lo = start;
  let hi = end - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = sorted[mid]!;
    if (v === value) return mid;
    if (v < value) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/**
 * The exact set of documents matching `node` in one segment, with Lucene BooleanQuery semantics:
 * every must, no mustNot, and of the shoulds at least `minimumShouldMatch` (at least one when
 * there is no must clause).
 *
 * A term or phrase that appears several times in the query is looked up (a phrase: verified)
 * once per segment: `memo` holds each leaf's set, and every use gets its own copy, since the
 * boolean steps combine sets in place.
 */
export function matchSet(node: QueryNode, seg: SegmentData, scope: FieldScope, memo: Map<string, Bitset> = new Map(), deadline?: Deadline): Bitset {
  const n = seg.docCount;
  switch (node.type) {
    case 'all':
      return fullSet(n);
    case 'none':
      return emptySet(n);
    case 'term':
    case 'phrase': {
      const key = JSON.stringify(node);
      let set = memo.get(key);
      if (!set) {
        // A phrase of common words verifies many positions: the search's time budget holds here too.
        deadline?.check();
        memo.set(key, (set = leafSet(node, seg, scope)));
      }
      return set.slice();
    }
    case 'bool': {
      let result: Bitset | undefined;
      for (const clause of node.must) {
        const m = matchSet(clause, seg, scope, memo, deadline);
        result = result ? andInPlace(result, m) : m;
      }
      const need = node.must.length > 0 ? node.minimumShouldMatch : Math.max(1, node.minimumShouldMatch);
      if (node.should.length > 0 && need > 0) {
        const sets = node.should.map((c) => matchSet(c, seg, scope, memo, deadline));
        let should: Bitset;
        if (need === 1) {
          should = emptySet(n);
          for (const s of sets) orInPlace(should, s);
        } else {
          const counts = new Uint16Array(n);
          for (const s of sets)
            for (let w = 0; w < s.length; w++) {
              let v = s[w]!;
              while (v !== 0) {
                counts[w * 32 + (31 - Math.clz32(v & -v))]!++;
                v &= v - 1;
              }
            }
          should = emptySet(n);
          for (let d = 0; d < n; d++) if (counts[d]! >= need) add(should, d);
        }
        result = result ? andInPlace(result, should) : should;
      } else if (!result) {
        // Only mustNot clauses (or nothing): start from everything.
        result = node.should.length === 0 ? fullSet(n) : emptySet(n);
      }
      for (const clause of node.mustNot) andNotInPlace(result, matchSet(clause, seg, scope, memo, deadline));
      return result;
    }
  }
}

function leafSet(node: Extract<QueryNode, { type: 'term' | 'phrase' }>, seg: SegmentData, scope: FieldScope): Bitset {
  const n = seg.docCount;
  const set = emptySet(n);
  for (const field of node.field ? [node.field] : scope.fields) {
    const text = seg.text[field];
    if (!text) continue;
    if (node.type === 'term') {
      const i = lookup(text.terms, node.term);
      if (i !== -1) orInPlace(set, fromSorted(text.docs, text.termStarts[i]!, text.termStarts[i + 1]!, n));
    } else {
      for (const doc of phraseMatches(text, node.terms, node.positions).keys()) add(set, doc);
    }
  }
  return set;
}

/** A bool of plain should-terms: the kernel's match counting can answer it without a JS set. */
export function isFlatDisjunction(node: QueryNode): node is Extract<QueryNode, { type: 'bool' }> {
  return node.type === 'bool' && node.must.length === 0 && node.mustNot.length === 0 && node.should.length > 0 && node.should.every((c) => c.type === 'term');
}
