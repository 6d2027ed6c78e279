import { z } from 'zod';
import { InputError } from '../../runtime/errors.js';
import { InvalidJsonError, mediaType } from '../../runtime/body.js';
import type { PluginContext, RouteRequest } from '../../runtime/plugin-types.js';
import { reply } from '../../runtime/reply.js';
import { parseFilter } from './filter.js';
import { parseCreateIndex, parsePatchIndex } from './mappings.js';
import type { SearchOptions } from './options.js';
import { DocumentNotFoundError, type SearchEngine } from './search-engine.js';
import { searchKeyword } from './search-keyword.js';
import { searchHybrid, searchSemantic } from './search-vector.js';
import { searchGeo } from './search-geo.js';
import { embedderFor, embedQueryText } from './embedder.js';

const sortSchema = z
  .array(z.union([z.string().min(1), z.record(z.string(), z.enum(['asc', 'desc']))]))
  .transform((items) =>
    items.flatMap((item) =>
      typeof item === 'string'
        ? [{ field: item.replace(/:(asc|desc)$/, ''), order: item.endsWith(':desc') ? ('desc' as const) : ('asc' as const) }]
        : Object.entries(item).map(([field, order]) => ({ field, order })),
    ),
  );

/** SearchQuery of seed 000, plus `from`, `sort` and `filter`. Unknown keys are errors. */
export const searchQuerySchema = z.strictObject({
  q: z.string().max(10_000).optional(),
  fields: z.array(z.string().min(1)).optional(),
  mode: z.enum(['keyword', 'semantic', 'hybrid', 'geo']).default('keyword'),
  operator: z.enum(['AND', 'OR']).optional(),
  minimumShouldMatch: z.union([z.string(), z.number().int()]).optional(),
  highlight: z.boolean().default(true),
  size: z.number().int().min(0).max(1000).default(10),
  from: z.number().int().min(0).max(100_000).default(0),
  sort: sortSchema.optional(),
  projection: z.record(z.string(), z.union([z.literal(0), z.literal(1)])).optional(),
  select: z.array(z.string().min(1)).optional(),
  filter: z.unknown().optional(),
  /** Query vector for `semantic` and `hybrid` (vectorDimensions finite numbers). */
  vector: z.array(z.number()).max(4096).optional(),
  rrfK: z.number().min(0).default(60),
  windowSize: z.number().int().min(1).max(1000).default(100),
  semanticRatio: z.number().min(0).max(1).default(0.5),
  explain: z.boolean().default(false),
  /** Beam width of the HNSW search on indexes with `vectorIndex: hnsw` (default: the index's efSearch). */
  efSearch: z.number().int().min(1).max(10_000).optional(),
  /** Scan every vector even on an index with graphs (exact answers, for checking recall). */
  exact: z.boolean().default(false),
  /** mode geo: {field?, lat, lon, radius} or {field?, boundingBox: {topLeft, bottomRight}}. */
  geo: z
    .strictObject({
      field: z.string().optional(),
      lat: z.number().optional(),
      lon: z.number().optional(),
      radius: z.union([z.string(), z.number()]).optional(),
      boundingBox: z.strictObject({ topLeft: z.strictObject({ lat: z.number(), lon: z.number() }), bottomRight: z.strictObject({ lat: z.number(), lon: z.number() }) }).optional(),
    })
    .optional(),
});

const deleteByQuerySchema = z.union([
  z.strictObject({ ids: z.array(z.union([z.string(), z.number()])).min(1).max(100_000) }),
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

export function registerRoutes(ctx: PluginContext<SearchOptions>, engine: () => SearchEngine): void {
  const tags = ['search'];
  ctx.routes.add({
    method: 'GET',
    path: '/v1/indexes',
    permission: 'search:read',
    throttle: 'light',
    tags,
    summary: 'List indexes with their document counts and statistics',
    handler: () => ({ indexes: engine().list() }),
  });
  ctx.routes.add({
    method: 'POST',
    path: '/v1/indexes',
    permission: 'index:admin',
    tags,
    summary: 'Create an index',
    body: z.unknown(),
    handler: async ({ body }) => ({ index: await engine().create(parseCreateIndex(body)) }),
  });
  ctx.routes.add({
    method: 'GET',
    path: '/v1/indexes/:name',
    permission: 'search:read',
    throttle: 'light',
    tags,
    handler: ({ params }) => {
      const list = engine().list().find((d) => d.name === params.name);
      if (!list) engine().get(params.name!);
      return { index: list };
    },
  });
  ctx.routes.add({
    method: 'PATCH',
    path: '/v1/indexes/:name',
    permission: 'index:admin',
    throttle: 'heavy',
    tags,
    summary: 'Change settings or add field mappings; re-indexes when analysis changes',
    body: z.unknown(),
    handler: async ({ params, body }) => engine().patch(params.name!, parsePatchIndex(body)),
  });
  ctx.routes.add({
    method: 'POST',
    path: '/v1/indexes/:name/embedder/train',
    permission: 'index:admin',
    throttle: 'heavy',
    tags,
    summary: 'Train the corpus-lsa-v1 embedder anew from the documents and re-embed them all',
    handler: async ({ params }) => ({ index: await engine().retrainEmbedder(params.name!) }),
  });
  ctx.routes.add({
    method: 'DELETE',
    path: '/v1/indexes/:name',
    permission: 'index:admin',
    tags,
    handler: async ({ params }) => {
      await engine().delete(params.name!);
      return { deleted: params.name };
    },
  });
  ctx.routes.add({
    method: 'POST',
    path: '/v1/indexes/:name/documents',
    permission: 'search:write',
    throttle: 'heavy',
    tags,
    summary: 'Upsert documents by id (JSON array, {documents}, or NDJSON); durable and searchable when this returns',
    accepts: ['application/json', 'application/x-ndjson'],
    bodyLimit: ctx.config.documentsBodyBytes,
    handler: async (request) => {
      const index = engine().get(request.params.name!);
      const docs = await readDocuments(request);
      return index.upsert(docs);
    },
  });
  ctx.routes.add({
    method: 'GET',
    path: '/v1/indexes/:name/documents/:id',
    permission: 'search:read',
    throttle: 'light',
    tags,
    handler: ({ params }) => {
      const index = engine().get(params.name!);
      const document = index.getDocument(params.id!);
      if (!document) throw new DocumentNotFoundError(index.name, params.id!);
      return { id: params.id, document };
    },
  });
  ctx.routes.add({
    method: 'DELETE',
    path: '/v1/indexes/:name/documents/:id',
    permission: 'search:write',
    tags,
    handler: async ({ params }) => {
      const index = engine().get(params.name!);
      const deleted = await index.delete([params.id!]);
      if (deleted === 0) throw new DocumentNotFoundError(index.name, params.id!);
      return { deleted };
    },
  });
  ctx.routes.add({
    method: 'POST',
    path: '/v1/indexes/:name/documents/delete',
    permission: 'search:write',
    throttle: 'heavy',
    tags,
    summary: 'Delete documents by ids or by filter',
    body: deleteByQuerySchema,
    handler: async ({ params, body }) => {
      const index = engine().get(params.name!);
      if ('ids' in body) return { deleted: await index.delete(body.ids.map(String)) };
      return { deleted: await index.delete(index.idsMatching(parseFilter(body.filter, index.record.mappings))) };
    },
  });
  ctx.routes.add({
    method: 'POST',
    path: '/v1/indexes/:name/search',
    permission: 'search:read',
    tags,
    summary: 'Search an index',
    body: searchQuerySchema,
    handler: async ({ params, body }) => {
      const started = performance.now();
      const index = engine().get(params.name!);
      if (body.mode === 'geo' && !body.geo) {
        throw new InputError('invalid_geo_query', 'Search mode "geo" needs "geo": {lat, lon, radius} or {boundingBox}.', { details: { path: 'geo' } });
      }
      if (body.projection && body.select) {
        throw new InputError('invalid_projection', 'Use either "projection" or "select", not both.');
      }
      let vector = body.vector;
      if ((body.mode === 'semantic' || body.mode === 'hybrid') && vector === undefined) {
        const dims = index.record.settings.vectorDimensions;
        if (!index.record.settings.autoEmbed || dims === undefined || !body.q?.trim()) {
          throw new InputError('vector_required', `Search mode "${body.mode}" needs a query "vector", or "q" on an index with autoEmbed.`, { details: { mode: body.mode } });
        }
        // By the embedder that made the stored vectors; the built-in v2 weights the query by idf.
        vector = await embedQueryText(embedderFor(index.record.settings, index.embeddingCorpus())!, body.q);
      }
      const filter = body.filter === undefined ? undefined : parseFilter(body.filter, index.record.mappings);
      const result =
        body.mode === 'geo'
          ? await searchGeo(index, ctx.kernels, { ...body, geo: body.geo!, filter })
          : body.mode === 'semantic'
          ? await searchSemantic(index, ctx.kernels, { vector: vector!, size: body.size, from: body.from, filter, projection: body.projection, select: body.select, efSearch: body.efSearch, exact: body.exact })
          : body.mode === 'hybrid'
            ? await searchHybrid(index, ctx.kernels, { ...body, vector: vector!, filter })
            : await searchKeyword(index, ctx.kernels, { ...body, filter });
      return { ok: true, total: result.total, tookMs: Math.round((performance.now() - started) * 100) / 100, hits: result.hits };
    },
  });
}
