import { definePlugin } from 'tessera/plugin';
import { AUTOCOMPLETE_SERVICE, SEARCH_SERVICE } from '../search/index.js';
import { errors } from './errors.js';
import { GraphStore } from './graph-store.js';
import { registerRoutes } from './routes.js';

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
  setup(ctx) {
    ctx.store.checkFormat(1);
    const search = ctx.container.resolve(SEARCH_SERVICE);
    const graphs = new GraphStore(ctx.store);
    const forget = ({ tenant, index }: { tenant: string; index: string }): void =>
      void graphs.drop(tenant, index).catch((err: unknown) => ctx.log.error({ err, tenant, index }, 'graph of a dropped index not removed'));
    search.on('index.dropped', forget);
    // A graph left by a crash between a drop and its removal must not reappear under a new index.
    search.on('index.created', forget);
    ctx.container.resolve(AUTOCOMPLETE_SERVICE).register({
      type: 'entity',
      flag: 'includeGraphEntities',
      dictionary: ({ tenant, index }) =>
        search.get(tenant, index)?.settings['enableKnowledgeGraph'] === false ? undefined : graphs.graph(tenant, index).names,
    });
    registerRoutes(ctx, { search, graphs });
  },
});

export type { GraphEntity, GraphTriple } from './schemas.js';
