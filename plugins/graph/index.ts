import { definePlugin, defineToken } from 'tessera-runtime/plugin';
import { AUTOCOMPLETE_SERVICE, SEARCH_SERVICE } from '../search/index.js';
import { errors } from './errors.js';
import { graphExpander } from './expand.js';
import { GraphStore } from './graph-store.js';
import { MentionLinker } from './linker.js';
import { Mentions } from './mentions.js';
import { registerRoutes } from './routes.js';
import { createGraphService, type GraphService } from './service.js';

/** What plugins that depend on `graph` use: batched writes and neighbour reads of an index's graph (service.ts). */
export const GRAPH_SERVICE = defineToken<GraphService>('graph.service');

/**
 * The per-index knowledge graph (seed 000): entities and weighted subject-predicate-object triples
 * stored with the index's tenant, searched by entity resolution and multi-hop traversal, and
 * offered to autocomplete as `entity` suggestions. Mounted on the search listener (3848).
 */
export default definePlugin({
  name: 'graph',
  version: '0.1.0',
  dependsOn: [{ name: 'search', version: '^0.1.0' }],
  errors,
  async setup(ctx) {
    await ctx.store.format(1);
    const search = ctx.container.resolve(SEARCH_SERVICE);
    const graphs = new GraphStore(ctx.store);
    const mentions = new Mentions(ctx.store);
    const managed = new Set<(tenant: string, index: string) => boolean>();
    const enabled = (tenant: string, index: string): boolean => {
      for (const test of managed) if (test(tenant, index)) return false;
      const info = search.get(tenant, index);
      return info !== undefined && info.settings['enableKnowledgeGraph'] !== false;
    };
    const linker = new MentionLinker({ search, graphs, mentions, jobs: ctx.jobs, log: ctx.log, enabled });
    const forget = ({ tenant, index }: { tenant: string; index: string }): void =>
      void Promise.all([graphs.drop(tenant, index), mentions.drop(tenant, index)]).catch((err: unknown) =>
        ctx.log.error({ err, tenant, index }, 'graph of a dropped index not removed'),
      );
    search.on('documents.written', ({ tenant, index, upserted, deleted }) => void linker.documents(tenant, index, [...upserted, ...deleted]));
    search.on('index.dropped', forget);
    // A graph left by a crash between a drop and its removal must not reappear under a new index.
    search.on('index.created', forget);
    ctx.container.resolve(AUTOCOMPLETE_SERVICE).register({
      type: 'entity',
      flag: 'includeGraphEntities',
      dictionary: ({ tenant, index }) =>
        search.get(tenant, index)?.settings['enableKnowledgeGraph'] === false ? undefined : graphs.graph(tenant, index).names,
    });
    search.registerExpander('graph', graphExpander({ search, graphs, mentions }));
    registerRoutes(ctx, { search, graphs, mentions, linker });
    ctx.provide(GRAPH_SERVICE, { useValue: createGraphService(graphs, managed) });
  },
});

export type { GraphEntity, GraphTriple } from './schemas.js';
export type { GraphService, GraphNeighbour, GraphBatch, GraphBatchResult, GraphStats } from './service.js';
