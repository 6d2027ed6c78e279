import type { BooleanQuery, PhraseQuery, QueryNode, TermQuery } from '../../../../plugins/search/query/query-ast.js';

/** Short constructors for expected query trees. */
export function term(text: string, field?: string): TermQuery {
  return field === undefined ? { type: 'term', term: text } : { type: 'term', term: text, field };
}

export function phrase(terms: string[], positions: number[], field?: string): PhraseQuery {
  return field === undefined ? { type: 'phrase', terms, positions } : { type: 'phrase', terms, positions, field };
}

export function bool(clauses: { must?: QueryNode[]; should?: QueryNode[]; mustNot?: QueryNode[]; minimumShouldMatch?: number }): BooleanQuery {
  return {
    type: 'bool',
    must: clauses.must ?? [],
    should: clauses.should ?? [],
    mustNot: clauses.mustNot ?? [],
    minimumShouldMatch: clauses.minimumShouldMatch ?? 0,
  };
}

export function terms(...texts: string[]): TermQuery[] {
  return texts.map((t) => term(t));
}

export const all: QueryNode = { type: 'all' };
export const none: QueryNode = { type: 'none' };
