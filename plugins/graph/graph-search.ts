/**
 * `POST /v1/indexes/{name}/graph/search`: resolve the query to entities, then walk the triples
 * breadth-first in both directions up to `maxHops`.
 *
 * Scores: a resolved entity starts with its resolution score; crossing a triple of weight w
 * multiplies by w / (w + 1) (weight 1 halves it, heavier triples carry more, weight 0 nothing).
 * An entity keeps the best score among its shortest paths: it is reached once, at its least hop
 * count, so cycles end the walk. `types` filters the entities answered (the walk goes through
 * every type), `limit` keeps the best. `edges` are the triples walked between the entities
 * answered (ordered by subject, predicate, object); `expandedTerms` their names and aliases; `relatedDocIds` their `docIds` that still
 * exist in the index.
 */
import type { IndexGraph } from './index-graph.js';
import { resolveEntities } from './resolve-entities.js';
import type { GraphEntity, GraphSearchInput, GraphTriple } from './schemas.js';

/** A walk stops widening past this many entities reached (a hub three hops out reaches most of a graph). */
export const maxVisited = 100_000;

export interface GraphSearchResult {
  entities: Array<GraphEntity & { score: number; hops: number }>;
  expandedTerms: string[];
  relatedDocIds: string[];
  edges: GraphTriple[];
}

export function searchGraph(graph: IndexGraph, input: GraphSearchInput, documentExists: (id: string) => boolean): GraphSearchResult {
  const reached = new Map<string, { score: number; hops: number }>();
  for (const r of resolveEntities(graph, input.query)) reached.set(r.id, { score: r.score, hops: 0 });
  const walked = new Set<GraphTriple>();
  let frontier = [...reached.keys()];
  for (let hop = 1; hop <= input.maxHops && frontier.length > 0 && reached.size < maxVisited; hop++) {
    const next = new Map<string, number>();
    for (const from of frontier) {
      const base = reached.get(from)!.score;
      for (const t of graph.adjacent.get(from) ?? []) {
        const to = t.subject === from ? t.object : t.subject;
        walked.add(t);
        if (to === from || reached.has(to)) continue;
        const score = (base * t.weight) / (t.weight + 1);
        if (score > (next.get(to) ?? -1)) next.set(to, score);
      }
    }
    for (const [id, score] of next) reached.set(id, { score, hops: hop });
    frontier = [...next.keys()];
  }

  const types = input.types && input.types.length > 0 ? new Set(input.types) : undefined;
  const chosen = [...reached]
    .filter(([id]) => !types || types.has(graph.entities.get(id)!.type))
    .sort((a, b) => b[1].score - a[1].score || a[1].hops - b[1].hops || compare(a[0], b[0]))
    .slice(0, input.limit);
  const ids = new Set(chosen.map(([id]) => id));

  const terms = new Map<string, string>();
  const docIds = new Set<string>();
  const entities = chosen.map(([id, { score, hops }]) => {
    const entity = graph.entities.get(id)!;
    for (const label of [entity.name, ...(entity.aliases ?? [])]) {
      const key = label.toLowerCase();
      if (!terms.has(key)) terms.set(key, label);
    }
    for (const doc of entity.docIds ?? []) if (documentExists(doc)) docIds.add(doc);
    return { ...entity, score: Math.round(score * 1e6) / 1e6, hops };
  });
  const edges = [...walked]
    .filter((t) => ids.has(t.subject) && ids.has(t.object))
    .map((t) => ({ ...t }))
    .sort((a, b) => compare(a.subject, b.subject) || compare(a.predicate, b.predicate) || compare(a.object, b.object));
  return { entities, expandedTerms: [...terms.values()], relatedDocIds: [...docIds], edges };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
