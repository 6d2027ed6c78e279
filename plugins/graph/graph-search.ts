/**
 * `POST /v1/indexes/{name}/graph/search`: resolve the query to entities, then walk the triples
 * breadth-first in both directions up to `maxHops`.
 *
 * Scores: a resolved entity starts with its resolution score; crossing a triple of weight w
 * multiplies by w / (w + 1) (weight 1 halves it, heavier triples carry more, weight 0 nothing).
 * An entity keeps the best score among its shortest paths: it is reached once, at its least hop
 * count, so cycles end the walk. Since no hop can raise a score, the walk stops early once `limit`
 * entities (of the `types` asked) score at least what the next hop could reach. `types` filters the entities answered (the walk goes through
 * every type), `limit` keeps the best. `edges` are the triples walked between the entities
 * answered (ordered by subject, predicate, object); `expandedTerms` their names and aliases; `relatedDocIds` their `docIds` and the documents
 * that mention them (mentions.ts), those that still exist in the index.
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

export interface DocumentLookup {
  exists(id: string): boolean;
  /** Documents that mention an entity (mentions.ts). */
  mentions?(entityId: string): Iterable<string>;
}

export function searchGraph(graph: IndexGraph, input: GraphSearchInput, documents: DocumentLookup): GraphSearchResult {
  const types = input.types && input.types.length > 0 ? new Set(input.types) : undefined;
  const wanted = (id: string): boolean => !types || types.has(graph.entities.get(id)!.type);
  const reached = new Map<string, { score: number; hops: number }>();
  for (const r of resolveEntities(graph, input.query)) reached.set(r.id, { score: r.score, hops: 0 });
  // No triple carries more than this share of a score: what bounds the scores of the next hop.
  const carry = graph.maxWeight / (graph.maxWeight + 1);
  let frontier = [...reached.keys()];
  for (let hop = 1; hop <= input.maxHops && frontier.length > 0 && reached.size < maxVisited; hop++) {
    // Stop when `limit` entities already score at least what any entity of this hop could.
    let frontierBest = 0;
    for (const id of frontier) frontierBest = Math.max(frontierBest, reached.get(id)!.score);
    const bound = frontierBest * carry;
    let above = 0;
    for (const [id, r] of reached) if (r.score >= bound && wanted(id)) above++;
    if (above >= input.limit) break;
    const next = new Map<string, number>();
    for (const from of frontier) {
      const base = reached.get(from)!.score;
      for (const t of graph.adjacent.get(from) ?? []) {
        const to = t.subject === from ? t.object : t.subject;
        if (to === from || reached.has(to)) continue;
        const score = (base * t.weight) / (t.weight + 1);
        if (score > (next.get(to) ?? -1)) next.set(to, score);
      }
    }
    for (const [id, score] of next) reached.set(id, { score, hops: hop });
    frontier = [...next.keys()];
  }

  // The best `limit` (of the types asked), kept in order as the reached entities go by.
  const chosen: Array<[string, { score: number; hops: number }]> = [];
  const better = (a: [string, { score: number; hops: number }], b: [string, { score: number; hops: number }]): boolean =>
    a[1].score > b[1].score || (a[1].score === b[1].score && (a[1].hops < b[1].hops || (a[1].hops === b[1].hops && a[0] < b[0])));
  for (const entry of reached) {
    if (chosen.length >= input.limit && !better(entry, chosen[chosen.length - 1]!)) continue;
    if (!wanted(entry[0])) continue;
    let at = chosen.length;
    while (at > 0 && better(entry, chosen[at - 1]!)) at--;
    chosen.splice(at, 0, entry);
    if (chosen.length > input.limit) chosen.pop();
  }
  const ids = new Map(chosen.map(([id, r]) => [id, r.hops]));

  const terms = new Map<string, string>();
  const docIds = new Set<string>();
  const entities = chosen.map(([id, { score, hops }]) => {
    const entity = graph.entities.get(id)!;
    for (const label of [entity.name, ...(entity.aliases ?? [])]) {
      const key = label.toLowerCase();
      if (!terms.has(key)) terms.set(key, label);
    }
    for (const doc of entity.docIds ?? []) if (documents.exists(doc)) docIds.add(doc);
    for (const doc of documents.mentions?.(id) ?? []) if (documents.exists(doc)) docIds.add(doc);
    return { ...entity, score: Math.round(score * 1e6) / 1e6, hops };
  });
  // The walk crossed every triple of an entity it expanded (fewer hops than maxHops): those between two answered entities.
  const edges: GraphTriple[] = [];
  for (const [id, hops] of ids) {
    if (hops >= input.maxHops) continue;
    for (const t of graph.adjacent.get(id) ?? []) {
      const other = t.subject === id ? t.object : t.subject;
      const otherHops = ids.get(other);
      // Each triple once: from the end with fewer hops (or the subject, at equal hops).
      if (otherHops === undefined || otherHops < hops || (otherHops === hops && t.subject !== id)) continue;
      edges.push({ ...t });
    }
  }
  edges.sort((a, b) => compare(a.subject, b.subject) || compare(a.predicate, b.predicate) || compare(a.object, b.object));
  return { entities, expandedTerms: [...terms.values()], relatedDocIds: [...docIds], edges };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
