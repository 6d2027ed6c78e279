import { PermissionError, ValidationError, z, type PluginContext } from 'tessera-runtime/plugin';
import { IndexNotFoundError } from '../index/search-engine.js';
import { canSeeIndex, tokenMayUse } from '../http/index-scope.js';
import type { AutocompleteRequest, AutocompleteService } from './autocomplete-service.js';

/** `size` default 10, at most 100 (seed 000's default; the bound is ours). */
export const maxSuggestions = 100;

const size = z.number().int().min(1).max(maxSuggestions).default(10);
const getQuery = z.object({
  q: z.string().optional(),
  size: z.preprocess((v) => (v === undefined || v === '' ? undefined : Number(v)), size),
});
const postBody = z.strictObject({
  q: z.string().optional(),
  size,
  includeCategories: z.boolean().default(true),
  includeDocuments: z.boolean().default(true),
  includeVisualTags: z.boolean().default(true),
  includeGraphEntities: z.boolean().default(true),
});

const suggestionSchema = z.object({
  text: z.string(),
  type: z.enum(['query', 'phrase', 'category', 'document', 'visual_tag', 'motif', 'color', 'entity']),
  score: z.number(),
  count: z.number().int(),
  docId: z.string().optional(),
  payload: z.record(z.string(), z.unknown()).optional(),
});
const answer = z.object({ ok: z.literal(true), query: z.string(), suggestions: z.array(suggestionSchema) });

function requireQ(q: string | undefined, where: 'query' | 'body'): string {
  if (q === undefined || q.trim() === '') {
    throw new ValidationError(`Invalid autocomplete request: ${where}.q: a non-empty prefix is required`, [
      { path: `${where}.q`, message: 'a non-empty prefix is required' },
    ]);
  }
  return q;
}

/** `GET` and `POST /v1/indexes/{name}/autocomplete` on the search plugin's listeners. */
export function registerAutocompleteRoutes(ctx: Pick<PluginContext, 'routes'>, autocomplete: AutocompleteService): void {
  const guard = (principal: Parameters<typeof canSeeIndex>[0], name: string, path: string): void => {
    if (!canSeeIndex(principal, name)) throw new IndexNotFoundError(name);
    // A tenant token's filter cannot be applied to suggestions drawn from every document.
    if (!tokenMayUse(principal, path)) {
      throw new PermissionError('permission_denied', 'A tenant token can list indexes and search them, nothing else.', {
        details: { permission: 'search:read' },
      });
    }
  };
  const path = '/v1/indexes/:name/autocomplete';
  ctx.routes.add({
    method: 'GET',
    path,
    permission: 'search:read',
    throttle: 'light',
    tags: ['search'],
    summary: 'Suggest completions of a prefix (`q`) from every source of the index',
    query: getQuery,
    response: answer,
    handler: async ({ params, query, tenant, principal }) => {
      guard(principal, params.name!, path);
      const request: AutocompleteRequest = { q: requireQ(query.q, 'query'), size: query.size };
      return autocomplete.suggest(tenant, params.name!, request);
    },
  });
  ctx.routes.add({
    method: 'POST',
    path,
    permission: 'search:read',
    throttle: 'light',
    tags: ['search'],
    summary: 'Suggest completions, choosing the sources (include* flags, each default true)',
    body: postBody,
    response: answer,
    handler: async ({ params, body, tenant, principal }) => {
      guard(principal, params.name!, path);
      return autocomplete.suggest(tenant, params.name!, { ...body, q: requireQ(body.q, 'body') });
    },
  });
}
