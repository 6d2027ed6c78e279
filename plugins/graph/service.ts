/**
 * What other plugins use of the graph plugin (`GRAPH_SERVICE` from `plugins/graph/index.ts`): a
 * narrow, tenant-scoped interface over each index's graph, written in batches. The agent keeps the
 * code knowledge graph of a repository here (docs/agent-api.md, "Code knowledge graph").
 */
import type { GraphBatch, GraphBatchResult, GraphStats, GraphStore } from './graph-store.js';
import type { GraphEntity, GraphTriple } from './schemas.js';

export type { GraphBatch, GraphBatchResult, GraphStats } from './graph-store.js';

/** One neighbour of an entity: the entity at the other end of a triple, and that triple. */
export interface GraphNeighbour {
  entity: GraphEntity;
  predicate: string;
  weight: number;
  /** `out`: the entity asked about is the triple's subject; `in`: its object. */
  direction: 'out' | 'in';
}

export interface GraphService {
  /** Removes and upserts entities and triples of the index in one committed write (GraphStore.write). */
  write(tenant: string, index: string, batch: GraphBatch): Promise<GraphBatchResult>;
  entity(tenant: string, index: string, id: string): GraphEntity | undefined;
  /** Every entity of the index (copies), in no particular order. */
  entities(tenant: string, index: string): GraphEntity[];
  /** Every triple of the index (copies), in no particular order. */
  triples(tenant: string, index: string): GraphTriple[];
  /**
   * The entity's neighbours through triples of `predicate` (every predicate when absent) in
   * `direction` (`both` when absent), heaviest triple first, then by neighbour id.
   */
  neighbours(tenant: string, index: string, id: string, options?: { predicate?: string; direction?: 'out' | 'in' | 'both' }): GraphNeighbour[];
  stats(tenant: string, index: string): GraphStats;
  /** Removes the index's graph. */
  drop(tenant: string, index: string): Promise<void>;
  /**
   * Declares indexes whose graph their owner writes explicitly: the documents written to them are
   * not linked to entities by name (docs/graph.md, "Mentions"), so the owner's triples are the whole
   * graph. Returns a function that withdraws the declaration.
   */
  manageIndexes(test: (tenant: string, index: string) => boolean): () => void;
}

export function createGraphService(graphs: GraphStore, managed: Set<(tenant: string, index: string) => boolean>): GraphService {
  return {
    write: (tenant, index, batch) => graphs.write(tenant, index, batch),
    entity: (tenant, index, id) => {
      const e = graphs.graph(tenant, index).entities.get(id);
      return e ? structuredClone(e) : undefined;
    },
    entities: (tenant, index) => [...graphs.graph(tenant, index).entities.values()].map((e) => structuredClone(e)),
    triples: (tenant, index) => [...graphs.graph(tenant, index).triples.values()].map((t) => ({ ...t })),
    neighbours: (tenant, index, id, options = {}) => {
      const graph = graphs.graph(tenant, index);
      const direction = options.direction ?? 'both';
      const out: GraphNeighbour[] = [];
      for (const t of graph.adjacent.get(id) ?? []) {
        if (options.predicate !== undefined && t.predicate !== options.predicate) continue;
        const outgoing = t.subject === id;
        if ((outgoing && direction === 'in') || (!outgoing && direction === 'out')) continue;
        const other = graph.entities.get(outgoing ? t.object : t.subject);
        if (other) out.push({ entity: structuredClone(other), predicate: t.predicate, weight: t.weight, direction: outgoing ? 'out' : 'in' });
      }
      return out.sort((a, b) => b.weight - a.weight || (a.entity.id < b.entity.id ? -1 : a.entity.id > b.entity.id ? 1 : 0));
    },
    stats: (tenant, index) => graphs.stats(tenant, index),
    drop: (tenant, index) => graphs.drop(tenant, index),
    manageIndexes: (test) => {
      managed.add(test);
      return () => void managed.delete(test);
    },
  };
}
