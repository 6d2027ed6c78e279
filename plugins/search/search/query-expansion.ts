import { InputError } from 'tessera-runtime/plugin';
import type { SearchIndex } from '../index/search-index.js';
import { positiveLeaves, type PhraseQuery, type TermQuery } from '../query/query-ast.js';
import { parseQuery } from '../query/query-parser.js';

/**
 * Query expansion: the extension point behind a search's `expand: "<name>"` (docs/search-query.md,
 * "Query expansion"). Another plugin registers an expander by name through SEARCH_SERVICE's
 * `registerExpander` (the graph plugin registers `graph`); the search plugin knows none of them.
 *
 * An expansion never removes a match: its terms are optional clauses at a weight of at most 1 (a
 * document containing one matches, as an Elasticsearch synonym would, unless it holds a word `q`
 * excludes), and its `boostDocIds` multiply the scores of documents that match anyway by
 * `relatedBoost`.
 */
export interface QueryExpansion {
  /**
   * Words or phrases to add, each with its weight relative to a word of `q` (clamped to [0, 1])
   * and what it came from (the graph: the entity's name), shown under `explain`.
   */
  terms: Array<{ term: string; weight: number; source?: string }>;
  /** Documents related to the query: those that match get their score multiplied by `relatedBoost`. */
  boostDocIds: string[];
}

export type QueryExpander = (tenant: string, index: string, q: string) => Promise<QueryExpansion>;

/** A related document's score is multiplied by this (a bounded boost: it passes documents scoring up to 1.5 times its own, no more). */
export const relatedBoost = 1.5;
/** Terms one expansion adds at most (the rest, in the expander's order, are dropped). */
export const maxExpansionTerms = 64;

/** The expanders of one search plugin instance, by name. */
export class QueryExpanders {
  private readonly byName = new Map<string, QueryExpander>();

  /** Registers `name`; the returned function unregisters it. A second expander of one name is an error. */
  register(name: string, expander: QueryExpander): () => void {
    if (this.byName.has(name)) throw new Error(`A query expander named "${name}" is registered already.`);
    this.byName.set(name, expander);
    return () => {
      if (this.byName.get(name) === expander) this.byName.delete(name);
    };
  }

  names(): string[] {
    return [...this.byName.keys()].sort();
  }

  /** Runs the expander `name` for a search of `index`: 400 `validation_failed` for a name none registered. */
  async expand(name: string, index: SearchIndex, q: string): Promise<QueryExpansion> {
    const expander = this.byName.get(name);
    if (!expander) {
      const known = this.names();
      throw new InputError('validation_failed', `expand: "${name}" is not an expansion this server offers (${known.length > 0 ? known.join(', ') : 'none'}).`, {
        details: { issues: [{ path: 'expand', message: `expected one of: ${known.join(', ') || '(none registered)'}` }] },
      });
    }
    return expander(index.record.tenant, index.name, q);
  }
}

/** An expansion as the keyword ranking phase uses it: analysed leaves with their weights. */
export interface PlannedExpansion {
  name: string;
  leaves: Array<TermQuery | PhraseQuery>;
  weights: number[];
  /** The term each leaf came from, as the expander wrote it, and the term's source (for `explain`). */
  labels: string[];
  sources: Array<string | undefined>;
  boostDocIds: ReadonlySet<string>;
}

/**
 * The expansion's terms analysed like unqualified words of `q` (a term of several words is a
 * phrase), without those `q` already holds; weights clamped to [0, 1].
 */
export function planExpansion(
  index: SearchIndex,
  name: string,
  expansion: QueryExpansion,
  fields: ReadonlyArray<{ field: string }>,
  queryLeaves: ReadonlyArray<TermQuery | PhraseQuery>,
): PlannedExpansion {
  const seen = new Set(queryLeaves.map((leaf) => JSON.stringify(leaf)));
  const planned: PlannedExpansion = { name, leaves: [], weights: [], labels: [], sources: [], boostDocIds: new Set(expansion.boostDocIds) };
  for (const { term, weight, source } of expansion.terms) {
    if (planned.leaves.length >= maxExpansionTerms) break;
    const w = Number.isFinite(weight) ? Math.min(1, Math.max(0, weight)) : 0;
    if (w === 0) continue;
    const words = term.replace(/["\\]/g, ' ').trim();
    if (!words) continue;
    const ast = parseQuery(`"${words}"`, { analyzer: index.analyzerFor(fields[0]?.field ?? '') });
    for (const leaf of positiveLeaves(ast)) {
      const key = JSON.stringify(leaf);
      if (seen.has(key)) continue;
      seen.add(key);
      planned.leaves.push(leaf);
      planned.weights.push(w);
      planned.labels.push(term);
      planned.sources.push(source);
    }
  }
  return planned;
}
