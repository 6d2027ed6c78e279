/**
 * The parsed form of a keyword query: Lucene BooleanQuery semantics over term and phrase leaves.
 * Plain JSON (no classes), so it can be logged, cached, sent to a worker or compared in a test.
 */
export type QueryNode = TermQuery | PhraseQuery | BooleanQuery | MatchAllQuery | MatchNoneQuery;

/** One analysed term. Without `field` it is searched in every field of the request. */
export interface TermQuery {
  type: 'term';
  term: string;
  field?: string;
}

/**
 * Analysed terms that must occur at these relative positions: a document matches where term i
 * sits at p + positions[i] for some p. Positions keep the gaps of dropped stop words, so
 * "flow of air" (english) is terms [flow, air] at [0, 2] and matches only that wording.
 */
export interface PhraseQuery {
  type: 'phrase';
  terms: string[];
  positions: number[];
  field?: string;
}

/**
 * A document matches when it matches every `must` clause and no `mustNot` clause, and at least
 * `minimumShouldMatch` of the `should` clauses, where 0 means "none" if there is a `must` clause
 * and "one" if there is not (so `should` alone is a disjunction, and beside `must` it only adds
 * score). The score is the sum of the matching `must` and `should` clauses' scores.
 */
export interface BooleanQuery {
  type: 'bool';
  must: QueryNode[];
  should: QueryNode[];
  mustNot: QueryNode[];
  minimumShouldMatch: number;
}

/** Every document (score 0): the empty query, and the positive side of "NOT x" standing alone. */
export interface MatchAllQuery {
  type: 'all';
}

/** No document: a query whose every word was a stop word or punctuation. */
export interface MatchNoneQuery {
  type: 'none';
}

export const matchAll: MatchAllQuery = Object.freeze({ type: 'all' });
export const matchNone: MatchNoneQuery = Object.freeze({ type: 'none' });

/** Every term and phrase leaf that can contribute to the score or a highlight (not under `mustNot`). */
export function positiveLeaves(node: QueryNode): Array<TermQuery | PhraseQuery> {
  switch (node.type) {
    case 'term':
    case 'phrase':
      return [node];
    case 'bool':
      return [...node.must, ...node.should].flatMap(positiveLeaves);
    default:
      return [];
  }
}
