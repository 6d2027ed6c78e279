import type { QueryExpander, QueryExpansion, SearchService } from '../search/index.js';
import { errors } from './errors.js';
import type { GraphStore } from './graph-store.js';
import { searchGraph, type GraphSearchResult } from './graph-search.js';
import type { Mentions } from './mentions.js';

/** An expanded term's weight beside a word of `q` (docs/graph.md, "Graph-boosted search"). */
export const graphTermWeight = 0.3;
/** The graph search an expansion runs: one hop, the best 10 entities (the endpoint's defaults). */
export const expansionWalk = { maxHops: 1, limit: 10 } as const;

/**
 * `expand: "graph"` on a search: `q` resolved to entities and walked one hop as
 * `POST .../graph/search` does; every answered entity's name and aliases join the query at
 * `graphTermWeight`, its related documents (`relatedDocIds`) are boosted. An index with the graph
 * turned off is 400 `feature_disabled`, as its graph endpoints are.
 */
export function graphExpander(deps: { search: SearchService; graphs: GraphStore; mentions: Mentions }): QueryExpander {
  const { search, graphs, mentions } = deps;
  return async (tenant, index, q) => {
    if (search.get(tenant, index)?.settings['enableKnowledgeGraph'] === false) throw errors.feature_disabled({ index });
    const query = q.trim().slice(0, 1024);
    if (!query) return { terms: [], boostDocIds: [] };
    const found = searchGraph(
      graphs.graph(tenant, index),
      { query, ...expansionWalk },
      {
        exists: (id) => search.getDocument(tenant, index, id) !== undefined,
        mentions: (id) => mentions.documentsOf(tenant, index, id),
      },
    );
    return expansionOf(found);
  };
}

/** A graph search's answer as a query expansion: every entity's name and aliases, its related documents. */
export function expansionOf(found: GraphSearchResult): QueryExpansion {
  return {
    terms: found.entities.flatMap((e) => [e.name, ...(e.aliases ?? [])].map((term) => ({ term, weight: graphTermWeight, source: e.name }))),
    boostDocIds: found.relatedDocIds,
  };
}
