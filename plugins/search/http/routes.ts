import { z } from 'zod';
import { InputError, InvalidJsonError, mediaType, PermissionError, type PluginContext, type RouteDefinition, type RouteRequest } from 'tessera-runtime/plugin';
import { parseFilter } from '../query/filter.js';
import { parseCreateIndex, parsePatchIndex } from '../index/mappings.js';
import type { SearchOptions } from '../options.js';
import { describe, DocumentNotFoundError, IndexNotFoundError, type SearchEngine } from '../index/search-engine.js';
import { canSeeIndex, tokenMayUse, withTokenFilter } from './index-scope.js';
import { runSearch, searchQuerySchema } from '../search/search.js';

const deleteByQuerySchema = z.union([
  z.strictObject({
    ids: z
      .array(z.union([z.string(), z.number()]))
      .min(1)
      .max(100_000),
  }),
  z.strictObject({ filter: z.unknown() }),
]);

/** Documents arrive as a JSON array, `{documents: [...]}`, or NDJSON (one document per line). */
async function readDocuments(request: RouteRequest<unknown, unknown>): Promise<unknown[]> {
  const type = mediaType(request.headers);
  const text = await request.text();
  if (type === 'application/x-ndjson') {
    const docs: unknown[] = [];
    text.split('\n').forEach((line, i) => {
      if (line.trim() === '') return;
      try {
        docs.push(JSON.parse(line));
      } catch (err) {
        throw new InvalidJsonError(`line ${i + 1}: ${(err as Error).message}`, { line: i + 1 });
      }
    });
    return docs;
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (err) {
    throw new InvalidJsonError((err as Error).message);
  }
  if (Array.isArray(body)) return body;
  if (body && typeof body === 'object' && Array.isArray((body as { documents?: unknown }).documents)) return (body as { documents: unknown[] }).documents;
  throw new InputError('validation_failed', 'Send a JSON array of documents, {"documents": [...]}, or NDJSON.', {
    details: { issues: [{ path: 'body', message: 'expected an array of documents or {documents: [...]}' }] },
  });
}

/** What other parts of the plugin learn from the routes: a search that answered (autocomplete's query log). */
export interface RouteHooks {
  searched?(tenant: string, index: string, q: unknown, total: number): void;
}

export function registerRoutes(ctx: PluginContext<SearchOptions>, engine: () => SearchEngine, hooks: RouteHooks = {}): void {
  const tags = ['search'];
  // Every route that names an index first checks the key's index scope: outside it, the index
  // does not exist for this caller (404 index_not_found, as for another tenant's index).
  const routes = {
    add<B extends z.ZodType | undefined, Q extends z.ZodType | undefined>(definition: RouteDefinition<B, Q>): void {
      const handler = definition.handler;
      ctx.routes.add({
        ...definition,
        handler: (request) => {
          const name = request.params.name;
          if (name !== undefined && !canSeeIndex(request.principal, name)) throw new IndexNotFoundError(name);
          if (!tokenMayUse(request.principal, definition.path)) {
            throw new PermissionError('permission_denied', 'A tenant token can list indexes and search them, nothing else.', {
              details: { permission: 'search:read' },
            });
          }
          return handler(request);
        },
      });
    },
  };
  routes.add({
    method: 'GET',
    path: '/v1/indexes',
    permission: 'search:read',
    throttle: 'light',
    tags,
    summary: 'List indexes with their document counts and statistics',
    handler: ({ tenant, principal }) => ({
      indexes: engine()
        .list(tenant)
        .filter((i) => canSeeIndex(principal, i.name)),
    }),
  });
  routes.add({
    method: 'POST',
    path: '/v1/indexes',
    permission: 'index:admin',
    tags,
    summary: 'Create an index',
    body: z.unknown(),
    handler: async ({ body, tenant, principal }) => {
      const input = parseCreateIndex(body);
      if (!canSeeIndex(principal, input.name)) throw new IndexNotFoundError(input.name);
      return { index: await engine().create(tenant, input) };
    },
  });
  routes.add({
    method: 'GET',
    path: '/v1/indexes/:name',
    permission: 'search:read',
    throttle: 'light',
    tags,
    handler: ({ params, tenant }) => ({ index: describe(engine().get(tenant, params.name!)) }),
  });
  routes.add({
    method: 'PATCH',
    path: '/v1/indexes/:name',
    permission: 'index:admin',
    throttle: 'heavy',
    tags,
    summary: 'Change settings or add field mappings; re-indexes when analysis changes',
    body: z.unknown(),
    handler: async ({ params, body, tenant }) => engine().patch(tenant, params.name!, parsePatchIndex(body)),
  });
  routes.add({
    method: 'POST',
    path: '/v1/indexes/:name/embedder/train',
    permission: 'index:admin',
    throttle: 'heavy',
    tags,
    summary: 'Train the corpus-lsa-v1 embedder anew from the documents and re-embed them all',
    handler: async ({ params, tenant }) => ({ index: await engine().retrainEmbedder(tenant, params.name!) }),
  });
  routes.add({
    method: 'DELETE',
    path: '/v1/indexes/:name',
    permission: 'index:admin',
    tags,
    handler: async ({ params, tenant }) => {
      await engine().delete(tenant, params.name!);
      return { deleted: params.name };
    },
  });
  routes.add({
    method: 'POST',
    path: '/v1/indexes/:name/documents',
    permission: 'search:write',
    throttle: 'heavy',
    tags,
    summary: 'Upsert documents by id (JSON array, {documents}, or NDJSON); durable and searchable when this returns',
    accepts: ['application/json', 'application/x-ndjson'],
    bodyLimit: ctx.config.documentsBodyBytes,
    handler: async (request) => {
      const index = engine().get(request.tenant, request.params.name!);
      const docs = await readDocuments(request);
      return index.upsert(docs);
    },
  });
  routes.add({
    method: 'GET',
    path: '/v1/indexes/:name/documents/:id',
    permission: 'search:read',
    throttle: 'light',
    tags,
    handler: ({ params, tenant }) => {
      const index = engine().get(tenant, params.name!);
      const document = index.getDocument(params.id!);
      if (!document) throw new DocumentNotFoundError(index.name, params.id!);
      return { id: params.id, document };
    },
  });
  routes.add({
    method: 'DELETE',
    path: '/v1/indexes/:name/documents/:id',
    permission: 'search:write',
    tags,
    handler: async ({ params, tenant }) => {
      const index = engine().get(tenant, params.name!);
      const deleted = await index.delete([params.id!]);
      if (deleted === 0) throw new DocumentNotFoundError(index.name, params.id!);
      return { deleted };
    },
  });
  routes.add({
    method: 'POST',
    path: '/v1/indexes/:name/documents/delete',
    permission: 'search:write',
    throttle: 'heavy',
    tags,
    summary: 'Delete documents by ids or by filter',
    body: deleteByQuerySchema,
    handler: async ({ params, body, tenant }) => {
      const index = engine().get(tenant, params.name!);
      if ('ids' in body) return { deleted: await index.delete(body.ids.map(String)) };
      return { deleted: await index.delete(index.idsMatching(parseFilter(body.filter, index.record.mappings))) };
    },
  });
  routes.add({
    method: 'POST',
    path: '/v1/indexes/:name/search',
    permission: 'search:read',
    tags,
    summary: 'Search an index',
    body: searchQuerySchema,
    handler: async ({ params, body, tenant, principal }) => {
      const result = await runSearch(engine().get(tenant, params.name!), ctx.kernels, withTokenFilter(principal, params.name!, body), {
        timeoutMs: ctx.config.searchTimeoutMs,
        expanders: engine().expanders,
      });
      hooks.searched?.(tenant, params.name!, body.q, result.total);
      return result;
    },
  });
}
