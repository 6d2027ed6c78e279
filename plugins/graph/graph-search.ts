/**
 * `POST /v1/indexes/{name}/graph/search`: resolve the query to entities, then walk the triples
 * breadth-first in both directions up to `maxHops`.
 *
 * Scores: a resolved entity starts with its resolution score; crossing a triple of weight w
 * multiplies by w / (w + 1) (weight 1 halves it, heavier triples carry more, weight 0 nothing).
 * An entity scores its best path of at most `maxHops` triples; `hops` is that path's length.
 * Since no triple raises a score, the walk goes best first (a priority queue) and stops as soon as
 * `limit` entities of the `types` asked are answered: a hub two hops out is expanded only if its
 * neighbours could still enter the answer. Cycles end because a path never beats itself. `types` filters the entities answered (the walk goes through
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
  // Best first: an entity is answered when it leaves the queue, which is in falling score order,
  // so the walk ends as soon as `limit` entities of the types asked have left it.
  const queue = new MaxQueue();
  const seen = new Map<string, { score: number; hops: number }>();
  for (const r of resolveEntities(graph, input.query)) {
    seen.set(r.id, { score: r.score, hops: 0 });
    queue.push({ id: r.id, score: r.score, hops: 0 });
  }
  const chosen: Array<[string, { score: number; hops: number }]> = [];
  const done = new Set<string>();
  const expandedAt = new Map<string, number>();
  let reached = seen.size;
  while (queue.size > 0 && chosen.length < input.limit) {
    const { id, score, hops } = queue.pop()!;
    if (!done.has(id)) {
      done.add(id);
      if (wanted(id)) chosen.push([id, { score, hops }]);
    }
    // Expanded again only when reached in fewer hops (its score is then lower, its reach longer).
    if (hops >= input.maxHops || (expandedAt.get(id) ?? Infinity) <= hops || reached >= maxVisited) continue;
    expandedAt.set(id, hops);
    // Of a hub's thousands of neighbours only those that can still enter the answer are queued:
    // one scoring below `limit` wanted siblings cannot, and neither can anything past it (no
    // triple raises a score).
    const candidates: Array<{ to: string; score: number }> = [];
    const top: number[] = [];
    for (const t of graph.byWeight(id)) {
      const next = (score * t.weight) / (t.weight + 1);
      // Heaviest first: once `limit` wanted neighbours beat this one, every later one is lighter still.
      if (top.length >= input.limit && next < top[top.length - 1]!) break;
      const to = t.subject === id ? t.object : t.subject;
      if (to === id || done.has(to)) continue;
      const before = seen.get(to);
      if (before && before.score >= next && before.hops <= hops + 1) continue;
      candidates.push({ to, score: next });
      if (!wanted(to) || (top.length >= input.limit && next <= top[top.length - 1]!)) continue;
      let at = top.length;
      while (at > 0 && next > top[at - 1]!) at--;
      top.splice(at, 0, next);
      if (top.length > input.limit) top.pop();
    }
    const threshold = top.length >= input.limit ? top[top.length - 1]! : 0;
    for (const { to, score: next } of candidates) {
      if (next < threshold) continue;
      const before = seen.get(to);
      if (!before) reached++;
      seen.set(to, before ? { score: Math.max(before.score, next), hops: Math.min(before.hops, hops + 1) } : { score: next, hops: hops + 1 });
      queue.push({ id: to, score: next, hops: hops + 1 });
    }
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

interface Queued {
  id: string;
  score: number;
  hops: number;
}

/** Higher score first, then fewer hops, then id: a binary heap. */
class MaxQueue {
  private readonly items: Queued[] = [];
  get size(): number {
    return this.items.length;
  }
  private static before(a: Queued, b: Queued): boolean {
    return a.score > b.score || (a.score === b.score && (a.hops < b.hops || (a.hops === b.hops && a.id < b.id)));
  }
  push(item: Queued): void {
    const items = this.items;
    items.push(item);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!MaxQueue.before(items[i]!, items[parent]!)) break;
      [items[i], items[parent]] = [items[parent]!, items[i]!];
      i = parent;
    }
  }
  pop(): Queued | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0 && last) {
      items[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let best = i;
        if (l < items.length && MaxQueue.before(items[l]!, items[best]!)) best = l;
        if (r < items.length && MaxQueue.before(items[r]!, items[best]!)) best = r;
        if (best === i) break;
        [items[i], items[best]] = [items[best]!, items[i]!];
        i = best;
      }
    }
    return top;
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
