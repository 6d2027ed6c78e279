/**
 * One index's knowledge graph in memory: entities by id, triples by (subject, predicate, object),
 * adjacency in both directions, and the names and aliases as a suggestion dictionary (what entity
 * resolution and the autocomplete `entity` source both read). The store is the truth; this is
 * loaded from it on first use and changed only after a write has committed.
 */
import { normaliseSuggestion, SuggestionDictionary } from '../search/index.js';
import type { GraphEntity, GraphTriple } from './schemas.js';

export const tripleKey = (t: Pick<GraphTriple, 'subject' | 'predicate' | 'object'>): string => `${t.subject}\u0000${t.predicate}\u0000${t.object}`;

export class IndexGraph {
  readonly entities = new Map<string, GraphEntity>();
  readonly triples = new Map<string, GraphTriple>();
  /** Triples touching each entity, as subject or object. */
  readonly adjacent = new Map<string, Set<GraphTriple>>();
  /** Names and aliases, keyed `${id}\0${n}`, with the entity id in the payload. */
  readonly names = new SuggestionDictionary();
  /** Normalised name or alias -> entity ids (exact resolution). */
  readonly exact = new Map<string, Set<string>>();
  /** The longest name or alias in words: how long a run of query words resolution tries. */
  longestName = 1;
  /** The heaviest weight any triple has had (an upper bound: removals do not lower it). */
  maxWeight = 0;
  /** Each entity's triples by falling weight, sorted on first use after a change. */
  private readonly sorted = new Map<string, GraphTriple[]>();

  /** The triples touching `id`, heaviest first (what a walk reads: it can stop at the first too light). */
  byWeight(id: string): readonly GraphTriple[] {
    let list = this.sorted.get(id);
    if (!list) {
      list = [...(this.adjacent.get(id) ?? [])].sort((a, b) => b.weight - a.weight);
      this.sorted.set(id, list);
    }
    return list;
  }

  putEntity(entity: GraphEntity): void {
    this.removeNames(entity.id);
    this.entities.set(entity.id, entity);
    const labels = [entity.name, ...(entity.aliases ?? [])];
    labels.forEach((label, n) => {
      const norm = normaliseSuggestion(label);
      if (norm === '') return;
      this.names.set(`${entity.id}\u0000${n}`, { text: label, count: 1, payload: { entityId: entity.id, entityType: entity.type } });
      let ids = this.exact.get(norm);
      if (!ids) this.exact.set(norm, (ids = new Set()));
      ids.add(entity.id);
      this.longestName = Math.max(this.longestName, norm.split(' ').length);
    });
  }

  private removeNames(id: string): void {
    const previous = this.entities.get(id);
    if (!previous) return;
    [previous.name, ...(previous.aliases ?? [])].forEach((label, n) => {
      this.names.remove(`${id}\u0000${n}`);
      const norm = normaliseSuggestion(label);
      const ids = this.exact.get(norm);
      ids?.delete(id);
      if (ids?.size === 0) this.exact.delete(norm);
    });
  }

  /** Removes the entity and every triple touching it; answers the triples removed. */
  removeEntity(id: string): GraphTriple[] {
    if (!this.entities.has(id)) return [];
    const touching = [...(this.adjacent.get(id) ?? [])];
    for (const t of touching) this.removeTriple(t);
    this.removeNames(id);
    this.entities.delete(id);
    this.adjacent.delete(id);
    return touching;
  }

  putTriple(triple: GraphTriple): void {
    this.maxWeight = Math.max(this.maxWeight, triple.weight);
    const key = tripleKey(triple);
    this.sorted.delete(triple.subject);
    this.sorted.delete(triple.object);
    const existing = this.triples.get(key);
    if (existing) {
      existing.weight = triple.weight;
      return;
    }
    const stored = { ...triple };
    this.triples.set(key, stored);
    for (const end of [triple.subject, triple.object]) {
      let set = this.adjacent.get(end);
      if (!set) this.adjacent.set(end, (set = new Set()));
      set.add(stored);
    }
  }

  removeTriple(triple: Pick<GraphTriple, 'subject' | 'predicate' | 'object'>): boolean {
    const key = tripleKey(triple);
    const stored = this.triples.get(key);
    if (!stored) return false;
    this.triples.delete(key);
    this.sorted.delete(stored.subject);
    this.sorted.delete(stored.object);
    this.adjacent.get(stored.subject)?.delete(stored);
    this.adjacent.get(stored.object)?.delete(stored);
    return true;
  }
}
