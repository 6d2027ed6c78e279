import { NotFoundError, PermissionError, type PluginContext, type RouteRequest } from 'tessera-runtime/plugin';
import { canSeeIndex, tokenMayUse, type SearchService } from '../search/index.js';
import { errors } from './errors.js';
import type { GraphStore } from './graph-store.js';
import { searchGraph } from './graph-search.js';
import type { MentionLinker } from './linker.js';
import type { Mentions } from './mentions.js';
import { entitiesBodySchema, graphSearchSchema, triplesBodySchema, tripleKeysBodySchema } from './schemas.js';

/** Graph writes carry up to 50,000 items: larger than the default body limit. */
const writeBodyBytes = 64 * 1024 * 1024;

export function registerRoutes(
  ctx: Pick<PluginContext, 'routes'>,
  deps: { search: SearchService; graphs: GraphStore; mentions: Mentions; linker: MentionLinker },
): void {
  const { search, graphs, mentions, linker } = deps;
  /** Entity names changed: documents are read again for mentions, in the background. */
  const relink = async <T>(tenant: string, index: string, result: T): Promise<T> => {
    await linker.relink(tenant, index);
    return result;
  };
  const tags = ['graph'];
  /** The index named in the path, as the caller may see it, with its graph turned on. */
  const indexOf = (request: RouteRequest<unknown, unknown>, path: string): string => {
    const name = request.params.name!;
    const info = canSeeIndex(request.principal, name) ? search.get(request.tenant, name) : undefined;
    if (!info) throw new NotFoundError('index_not_found', `Index "${name}" does not exist.`, { details: { index: name } });
    if (!tokenMayUse(request.principal, path)) {
      throw new PermissionError('permission_denied', 'A tenant token can list indexes and search them, nothing else.', {
        details: { permission: 'search:read' },
      });
    }
    if (info.settings['enableKnowledgeGraph'] === false) throw errors.feature_disabled({ index: name });
    return name;
  };

  const entities = '/v1/indexes/:name/graph/entities';
  ctx.routes.add({
    method: 'POST',
    path: entities,
    permission: 'search:write',
    throttle: 'heavy',
    tags,
    summary: 'Upsert graph entities by id',
    body: entitiesBodySchema,
    bodyLimit: writeBodyBytes,
    handler: async (request) => {
      const index = indexOf(request, entities);
      return relink(request.tenant, index, await graphs.putEntities(request.tenant, index, request.body.entities));
    },
  });
  const entity = '/v1/indexes/:name/graph/entities/:id';
  ctx.routes.add({
    method: 'GET',
    path: entity,
    permission: 'search:read',
    throttle: 'light',
    tags,
    summary: 'Read a graph entity with its triples',
    handler: (request) => {
      const index = indexOf(request, entity);
      const graph = graphs.graph(request.tenant, index);
      const found = graph.entities.get(request.params.id!);
      if (!found) throw errors.entity_not_found({ index, id: request.params.id! });
      const triples = [...(graph.adjacent.get(found.id) ?? [])].map((t) => ({ ...t }));
      return { entity: found, triples, mentionedIn: [...mentions.documentsOf(request.tenant, index, found.id)].sort() };
    },
  });
  ctx.routes.add({
    method: 'DELETE',
    path: entity,
    permission: 'search:write',
    tags,
    summary: 'Delete a graph entity and every triple touching it',
    handler: async (request) => {
      const index = indexOf(request, entity);
      return relink(request.tenant, index, await graphs.deleteEntity(request.tenant, index, request.params.id!));
    },
  });

  const triples = '/v1/indexes/:name/graph/triples';
  ctx.routes.add({
    method: 'POST',
    path: triples,
    permission: 'search:write',
    throttle: 'heavy',
    tags,
    summary: 'Upsert triples by (subject, predicate, object); an upsert updates the weight',
    body: triplesBodySchema,
    bodyLimit: writeBodyBytes,
    handler: async (request) => graphs.putTriples(request.tenant, indexOf(request, triples), request.body.triples),
  });
  ctx.routes.add({
    method: 'DELETE',
    path: triples,
    permission: 'search:write',
    throttle: 'heavy',
    tags,
    summary: 'Delete triples by (subject, predicate, object)',
    body: tripleKeysBodySchema,
    bodyLimit: writeBodyBytes,
    handler: async (request) => ({ deleted: await graphs.deleteTriples(request.tenant, indexOf(request, triples), request.body.triples) }),
  });

  const stats = '/v1/indexes/:name/graph/stats';
  ctx.routes.add({
    method: 'GET',
    path: stats,
    permission: 'search:read',
    throttle: 'light',
    tags,
    summary: 'Entity and triple counts, by type and by predicate',
    handler: (request) => ({ stats: graphs.stats(request.tenant, indexOf(request, stats)) }),
  });

  const searchPath = '/v1/indexes/:name/graph/search';
  ctx.routes.add({
    method: 'POST',
    path: searchPath,
    permission: 'search:read',
    tags,
    summary: 'Resolve a query to entities and walk their triples up to maxHops',
    body: graphSearchSchema,
    handler: (request) => {
      const index = indexOf(request, searchPath);
      return searchGraph(graphs.graph(request.tenant, index), request.body, {
        exists: (id) => search.getDocument(request.tenant, index, id) !== undefined,
        mentions: (id) => mentions.documentsOf(request.tenant, index, id),
      });
    },
  });
}
