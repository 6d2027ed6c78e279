import { InputError } from 'tessera-runtime/plugin';
import type { SearchIndex } from '../index/search-index.js';
import { positiveLeaves, type PhraseQuery, type QueryNode, type TermQuery } from '../query/query-ast.js';
import { parseQuery } from '../query/query-parser.js';
import { highlightDocument } from './highlight.js';
import type { PlannedExpansion } from './query-expansion.js';

/**
 * The query phase of a text query: `q` resolved against the index once per request (its fields,
 * its tree, its positive leaves) and handed to every phase that needs it: the keyword ranking, the
 * geo match set, hybrid's keyword side and the highlighter of the fetch phase.
 */
export interface TextQuery {
  /** The searched text fields with their boosts (`title^2`), every indexed text field by default. */
  fields: Array<{ field: string; boost: number }>;
  ast: QueryNode;
  /** The distinct positive leaves (terms and phrases), in query order. */
  leaves: Array<TermQuery | PhraseQuery>;
  /** How many times each leaf was written in `q` (its query-term frequency). */
  repeats: number[];
  /** `expand`: the expander's terms as optional leaves at their lower weights (query-expansion.ts). */
  expansion?: PlannedExpansion;
}

export interface TextQueryInput {
  q?: string;
  fields?: string[];
  operator?: 'AND' | 'OR';
  minimumShouldMatch?: string | number;
}

/** `title^2` -> { field: 'title', boost: 2 }; only indexed text fields can be searched. */
export function resolveFields(index: SearchIndex, requested: readonly string[] | undefined): Array<{ field: string; boost: number }> {
  const text = index.textFields();
  if (!requested || requested.length === 0) return text.map((field) => ({ field, boost: 1 }));
  return requested.map((spec, i) => {
    const match = /^(.+?)(?:\^(\d+(?:\.\d+)?))?$/.exec(spec)!;
    const field = match[1]!;
    const boost = match[2] === undefined ? 1 : Number(match[2]);
    if (!text.includes(field)) {
      throw new InputError('validation_failed', `fields[${i}]: "${field}" is not an indexed text field of index "${index.name}".`, {
        details: { issues: [{ path: `fields[${i}]`, message: `expected one of ${text.join(', ') || '(no text fields)'}` }] },
      });
    }
    return { field, boost };
  });
}

/**
 * `q` parsed for an index: unqualified words analysed with the first searched field's analyzer,
 * `field:` qualifiers with their own, the index's operator and minimumShouldMatch as defaults.
 */
export function parseIndexQuery(index: SearchIndex, query: TextQueryInput, fields: ReadonlyArray<{ field: string }>): QueryNode {
  return parseQuery(query.q ?? '', {
    analyzer: index.analyzerFor(fields[0]?.field ?? ''),
    fields: Object.fromEntries(index.textFields().map((f) => [f, index.analyzerFor(f)])),
    defaultOperator: query.operator ?? index.record.settings.defaultOperator,
    minimumShouldMatch: query.minimumShouldMatch ?? index.record.settings.minimumShouldMatch,
  });
}

/** Resolves the fields (400 on one that is not an indexed text field), then parses `q` once. */
export function planTextQuery(index: SearchIndex, query: TextQueryInput): TextQuery {
  const fields = resolveFields(index, query.fields);
  const ast = parseIndexQuery(index, query, fields);
  return { fields, ast, ...dedupeLeaves(positiveLeaves(ast)) };
}

/** The distinct leaves, and how many times each was written in the query. */
function dedupeLeaves<T extends { type: string }>(all: T[]): { leaves: T[]; repeats: number[] } {
  const seen = new Map<string, number>();
  const leaves: T[] = [];
  const repeats: number[] = [];
  for (const leaf of all) {
    const key = JSON.stringify(leaf);
    const at = seen.get(key);
    if (at !== undefined) {
      repeats[at]!++;
      continue;
    }
    seen.set(key, leaves.length);
    leaves.push(leaf);
    repeats.push(1);
  }
  return { leaves, repeats };
}

/** Highlights of the query's fields for the terms of its positive leaves (none: every hit gets `{}`). */
export function highlighterFor(index: SearchIndex, text: TextQuery | undefined): (source: Record<string, unknown>) => Record<string, string[]> {
  const leaves = [...(text?.leaves ?? []), ...(text?.expansion?.leaves ?? [])];
  const terms = new Set(leaves.flatMap((l) => (l.type === 'term' ? [l.term] : l.terms)));
  if (!text || terms.size === 0 || text.fields.length === 0) return () => ({});
  const targets = text.fields.map(({ field }) => ({ field, analyzer: index.analyzerFor(field) }));
  return (source) => highlightDocument(source, targets, terms);
}

/** Clauses (terms and phrases) one query may hold, and phrases among them (each is verified by positions). */
export const maxQueryClauses = 1024;
export const maxQueryPhrases = 64;

/**
 * 400 `query_too_complex` past the caps, as Lucene's `maxClauseCount` (1024) refuses an oversized
 * BooleanQuery: a `q` inside the 10,000-character limit can otherwise hold hundreds of phrases, each
 * verified against positions on the main thread.
 */
export function checkComplexity(ast: QueryNode): void {
  let clauses = 0;
  let phrases = 0;
  const stack: QueryNode[] = [ast];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type === 'term') clauses++;
    else if (node.type === 'phrase') {
      clauses++;
      phrases++;
    } else if (node.type === 'bool') stack.push(...node.must, ...node.should, ...node.mustNot);
  }
  if (clauses > maxQueryClauses || phrases > maxQueryPhrases) {
    throw new InputError(
      'query_too_complex',
      `The query has ${clauses} clauses and ${phrases} phrases; at most ${maxQueryClauses} clauses and ${maxQueryPhrases} phrases are allowed. Remove repeated words or phrases, or split the search.`,
      { details: { clauses, phrases, maxClauses: maxQueryClauses, maxPhrases: maxQueryPhrases } },
    );
  }
}
