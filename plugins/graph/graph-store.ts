/**
 * The knowledge graphs of every index, in the graph plugin's LMDB namespace keyed by tenant and
 * index first (`entities`: [tenant, index, id]; `triples`: [tenant, index, subject, predicate,
 * object] -> weight). A write is checked, committed in one transaction, then applied to the
 * in-memory graph; writes to one index run one at a time. Dropping an index drops its graph.
 */
import type { Database } from 'lmdb';
import type { StoreNamespace } from 'tessera-runtime/plugin';
import { errors } from './errors.js';
import { IndexGraph, tripleKey } from './index-graph.js';
import type { GraphEntity, GraphTriple } from './schemas.js';

type EntityKey = [string, string, string];
type TripleKey = [string, string, string, string, string];

export interface GraphStats {
  entities: number;
  triples: number;
  types: Record<string, number>;
  predicates: Record<string, number>;
}

/** A batch of `GraphStore.write`. */
export interface GraphBatch {
  /** Entity ids to remove, with every triple touching them; an id the graph does not have is skipped. */
  removeEntities?: readonly string[];
  /** Triples to remove by (subject, predicate, object); one the graph does not have is skipped. */
  removeTriples?: ReadonlyArray<Pick<GraphTriple, 'subject' | 'predicate' | 'object'>>;
  /** Entities to upsert by id. */
  entities?: readonly GraphEntity[];
  /** Triples to upsert by (subject, predicate, object). */
  triples?: readonly GraphTriple[];
}

export interface GraphBatchResult {
  entities: { added: number; updated: number; removed: number };
  triples: { added: number; updated: number; removed: number };
}

const keyOf = (tenant: string, index: string): string => `${tenant}\u0000${index}`;

/** `unknown_entity` naming the first 20 of `unknown` (and the first 1,000 in its details). */
function unknownEntities(index: string, unknown: Set<string>): Error {
  const ids = [...unknown].sort();
  const shown = ids.slice(0, 20).map((i) => `"${i}"`);
  return errors.unknown_entity(
    { index, list: ids.length > 20 ? `${shown.join(', ')} and ${ids.length - 20} more` : shown.join(', ') },
    { details: { index, ids: ids.slice(0, 1000) } },
  );
}

export class GraphStore {
  private readonly store: StoreNamespace;
  private readonly entities: Database<GraphEntity, EntityKey>;
  private readonly triples: Database<number, TripleKey>;
  private readonly graphs = new Map<string, IndexGraph>();
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(store: StoreNamespace) {
    this.store = store;
    this.entities = store.db<GraphEntity, EntityKey>('entities');
    this.triples = store.db<number, TripleKey>('triples');
  }

  /** The index's graph, read from the store on first use. */
  graph(tenant: string, index: string): IndexGraph {
    const key = keyOf(tenant, index);
    let graph = this.graphs.get(key);
    if (graph) return graph;
    graph = new IndexGraph();
    for (const { key: k, value } of this.entities.getRange({ start: [tenant, index] })) {
      if (k[0] !== tenant || k[1] !== index) break;
      graph.putEntity(value);
    }
    for (const { key: k, value } of this.triples.getRange({ start: [tenant, index] })) {
      if (k[0] !== tenant || k[1] !== index) break;
      graph.putTriple({ subject: k[2], predicate: k[3], object: k[4], weight: value });
    }
    this.graphs.set(key, graph);
    return graph;
  }

  /** Runs writes to one index one after another. */
  private serial<T>(tenant: string, index: string, fn: () => Promise<T>): Promise<T> {
    const key = keyOf(tenant, index);
    const run = (this.queues.get(key) ?? Promise.resolve()).then(fn, fn);
    this.queues.set(
      key,
      run.catch(() => undefined),
    );
    return run;
  }

  /** Upserts by id (the last of a repeated id wins); answers how many were new and how many replaced. */
  putEntities(tenant: string, index: string, entities: readonly GraphEntity[]): Promise<{ added: number; updated: number }> {
    return this.serial(tenant, index, async () => {
      const graph = this.graph(tenant, index);
      const byId = new Map<string, GraphEntity>();
      for (const e of entities) byId.set(e.id, e);
      await this.store.transaction(() => {
        for (const e of byId.values()) void this.entities.put([tenant, index, e.id], e);
      });
      let added = 0;
      for (const e of byId.values()) {
        if (!graph.entities.has(e.id)) added++;
        graph.putEntity(e);
      }
      return { added, updated: byId.size - added };
    });
  }

  /** Upserts by (subject, predicate, object), updating the weight; every end must be an entity. */
  putTriples(tenant: string, index: string, triples: readonly GraphTriple[]): Promise<{ added: number; updated: number }> {
    return this.serial(tenant, index, async () => {
      const graph = this.graph(tenant, index);
      const unknown = new Set<string>();
      for (const t of triples) for (const end of [t.subject, t.object]) if (!graph.entities.has(end)) unknown.add(end);
      if (unknown.size > 0) throw unknownEntities(index, unknown);
      const byKey = new Map<string, GraphTriple>();
      for (const t of triples) byKey.set(tripleKey(t), t);
      await this.store.transaction(() => {
        for (const t of byKey.values()) void this.triples.put([tenant, index, t.subject, t.predicate, t.object], t.weight);
      });
      let added = 0;
      for (const [key, t] of byKey) {
        if (!graph.triples.has(key)) added++;
        graph.putTriple(t);
      }
      return { added, updated: byKey.size - added };
    });
  }

  /** Deletes the entity and its triples; 404 `entity_not_found` when there is none. */
  deleteEntity(tenant: string, index: string, id: string): Promise<{ deleted: string; triplesDeleted: number }> {
    return this.serial(tenant, index, async () => {
      const graph = this.graph(tenant, index);
      if (!graph.entities.has(id)) throw errors.entity_not_found({ index, id });
      const touching = [...(graph.adjacent.get(id) ?? [])];
      await this.store.transaction(() => {
        void this.entities.remove([tenant, index, id]);
        for (const t of touching) void this.triples.remove([tenant, index, t.subject, t.predicate, t.object]);
      });
      graph.removeEntity(id);
      return { deleted: id, triplesDeleted: touching.length };
    });
  }

  /** Deletes the triples named that exist; answers how many did. */
  deleteTriples(tenant: string, index: string, keys: ReadonlyArray<Pick<GraphTriple, 'subject' | 'predicate' | 'object'>>): Promise<number> {
    return this.serial(tenant, index, async () => {
      const graph = this.graph(tenant, index);
      const present = new Map<string, Pick<GraphTriple, 'subject' | 'predicate' | 'object'>>();
      for (const k of keys) if (graph.triples.has(tripleKey(k))) present.set(tripleKey(k), k);
      await this.store.transaction(() => {
        for (const t of present.values()) void this.triples.remove([tenant, index, t.subject, t.predicate, t.object]);
      });
      for (const t of present.values()) graph.removeTriple(t);
      return present.size;
    });
  }

  /**
   * One write of several kinds, checked first and committed in one transaction, then applied in
   * memory in this order: entities removed (with every triple touching them), triples removed,
   * entities put, triples put. Every end of a triple put must be an entity once the write is done
   * (400 `unknown_entity`, nothing written). Answers what changed.
   */
  write(tenant: string, index: string, batch: GraphBatch): Promise<GraphBatchResult> {
    return this.serial(tenant, index, async () => {
      const graph = this.graph(tenant, index);
      const removeIds = new Set((batch.removeEntities ?? []).filter((id) => graph.entities.has(id)));
      const putEntities = new Map<string, GraphEntity>();
      for (const e of batch.entities ?? []) putEntities.set(e.id, e);
      const present = (id: string): boolean => putEntities.has(id) || (graph.entities.has(id) && !removeIds.has(id));
      const putTriples = new Map<string, GraphTriple>();
      for (const t of batch.triples ?? []) putTriples.set(tripleKey(t), t);
      const unknown = new Set<string>();
      for (const t of putTriples.values()) for (const end of [t.subject, t.object]) if (!present(end)) unknown.add(end);
      if (unknown.size > 0) throw unknownEntities(index, unknown);
      const dropTriples = new Map<string, GraphTriple>();
      for (const id of removeIds) for (const t of graph.adjacent.get(id) ?? []) dropTriples.set(tripleKey(t), t);
      for (const k of batch.removeTriples ?? []) {
        const t = graph.triples.get(tripleKey(k));
        if (t) dropTriples.set(tripleKey(t), t);
      }
      await this.store.transaction(() => {
        for (const id of removeIds) void this.entities.remove([tenant, index, id]);
        for (const t of dropTriples.values()) if (!putTriples.has(tripleKey(t))) void this.triples.remove([tenant, index, t.subject, t.predicate, t.object]);
        for (const e of putEntities.values()) void this.entities.put([tenant, index, e.id], e);
        for (const t of putTriples.values()) void this.triples.put([tenant, index, t.subject, t.predicate, t.object], t.weight);
      });
      let triplesRemoved = 0;
      for (const id of removeIds) triplesRemoved += graph.removeEntity(id).length;
      for (const t of dropTriples.values()) if (graph.removeTriple(t)) triplesRemoved++;
      let entitiesAdded = 0;
      for (const e of putEntities.values()) {
        if (!graph.entities.has(e.id)) entitiesAdded++;
        graph.putEntity({ ...e });
      }
      let triplesAdded = 0;
      for (const [key, t] of putTriples) {
        if (!graph.triples.has(key)) triplesAdded++;
        graph.putTriple({ subject: t.subject, predicate: t.predicate, object: t.object, weight: t.weight });
      }
      return {
        entities: { added: entitiesAdded, updated: putEntities.size - entitiesAdded, removed: removeIds.size },
        triples: { added: triplesAdded, updated: putTriples.size - triplesAdded, removed: triplesRemoved },
      };
    });
  }

  stats(tenant: string, index: string): GraphStats {
    const graph = this.graph(tenant, index);
    const types: Record<string, number> = {};
    const predicates: Record<string, number> = {};
    for (const e of graph.entities.values()) types[e.type] = (types[e.type] ?? 0) + 1;
    for (const t of graph.triples.values()) predicates[t.predicate] = (predicates[t.predicate] ?? 0) + 1;
    return { entities: graph.entities.size, triples: graph.triples.size, types, predicates };
  }

  /** Removes the index's graph (the index was dropped, or created anew over a leftover one). */
  drop(tenant: string, index: string): Promise<void> {
    return this.serial(tenant, index, async () => {
      this.graphs.delete(keyOf(tenant, index));
      const entityKeys: EntityKey[] = [];
      for (const k of this.entities.getKeys({ start: [tenant, index] })) {
        if (k[0] !== tenant || k[1] !== index) break;
        entityKeys.push(k);
      }
      const tripleKeys: TripleKey[] = [];
      for (const k of this.triples.getKeys({ start: [tenant, index] })) {
        if (k[0] !== tenant || k[1] !== index) break;
        tripleKeys.push(k);
      }
      if (entityKeys.length + tripleKeys.length === 0) return;
      await this.store.transaction(() => {
        for (const k of entityKeys) void this.entities.remove(k);
        for (const k of tripleKeys) void this.triples.remove(k);
      });
    });
  }
}
