import { definePlugin, defineToken } from 'tessera-runtime/plugin';
import { analysisErrorCodes } from './analysis/analysis-error-codes.js';
import { searchOptionsSchema } from './options.js';
import { registerRoutes } from './http/routes.js';
import { searchErrorCodes } from './search-errors.js';
import { searchJobs } from './index/background.js';
import { EmbedderCatalog } from './embedders/embedder.js';
import { SearchEngine } from './index/search-engine.js';
import { createSearchService } from './search-service.js';
import type { SearchService } from './service.js';
import { imageErrors } from './image/image-errors.js';
import { registerImageFeatures } from './image/image-plugin.js';
import { imageFieldsOf } from './image/visual-mappings.js';
import { indexSizes } from './index/index-size.js';
import { Autocomplete, type AutocompleteService } from './autocomplete/autocomplete-service.js';
import { registerAutocompleteRoutes } from './autocomplete/routes.js';
import { ConfigPlans } from './config-plan/config-apply.js';
import { registerConfigRoutes } from './config-plan/routes.js';
import { registerVisualSuggestions } from './image/visual-suggestions.js';

/**
 * What plugins that depend on `search` use (bulk, graph, crawler, scanner, the control plane, the
 * agent): a narrow, tenant-scoped interface with events (service.ts).
 */
export const SEARCH_SERVICE = defineToken<SearchService>('search.service');
/** The engine itself, for Tessera's own benchmarks and tests; plugins use SEARCH_SERVICE. */
export const SEARCH_ENGINE = defineToken<SearchEngine>('search.engine');
/** Autocomplete: other plugins register suggestion sources here (docs/autocomplete.md). */
export const AUTOCOMPLETE_SERVICE = defineToken<AutocompleteService>('search.autocomplete');

export default definePlugin({
  name: 'search',
  version: '0.1.0',
  options: searchOptionsSchema,
  permissions: [
    { name: 'search:read', description: 'Search, suggest and read documents and index metadata.' },
    { name: 'search:write', description: 'Add, update and delete documents (single and bulk).' },
    { name: 'index:admin', description: 'Create, configure and drop indexes; crawls, scans and schedules.' },
  ],
  errors: imageErrors,
  errorCodes: [
    ...searchErrorCodes.filter((c) => c.code !== 'validation_failed'),
    ...analysisErrorCodes,
    { code: 'index_not_found', status: 404, when: 'No index has that name.' },
    { code: 'index_exists', status: 409, when: 'An index with that name already exists.' },
    { code: 'document_not_found', status: 404, when: 'The index has no document with that id.' },
    {
      code: 'invalid_geo_query',
      status: 400,
      when: '`mode: "geo"` without a valid `geo` (lat in [-90, 90], lon in [-180, 180], a radius such as "5km" or a boundingBox), or with a field that is not a geo_point; `details.path` says where.',
    },
    {
      code: 'embedding_failed',
      status: 502,
      when: 'The autoEmbed embedder failed after retries (per document in `errors[]` on ingest; the whole request for a query `q`); the message names the embedder and the HTTP status, "unreachable" or "timed out". What the endpoint answered goes to the server log only.',
    },
    {
      code: 'reindex_failed',
      status: 422,
      when: 'A PATCH whose re-index some stored documents do not fit (a new mapping their values do not match); `details.documents` lists the first 100 with the reason. Nothing changed.',
    },
    {
      code: 'embedder_not_allowed',
      status: 400,
      when: '`settings.embedder` carries an endpoint (`baseUrl`, `apiKeyEnv`) instead of naming an embedder of `plugins.search.options.embedders`, names one the manifest does not define, or one whose `dimensions` differ from `vectorDimensions`.',
    },
    {
      code: 'plan_stale',
      status: 409,
      when: "`POST /v1/config/apply`: hashing the plan with the tenant's indexes as they are now gives another hash (`details.current`): the indexes or the plan changed since it was made; nothing was done.",
    },
    {
      code: 'destructive_change',
      status: 409,
      when: '`POST /v1/config/apply` of a plan with destructive steps (`details.targets`) without `allowDestructive: true`; nothing was done.',
    },
    {
      code: 'vector_required',
      status: 400,
      when: '`semantic` or `hybrid` search with neither a query `vector` nor, on an index with `autoEmbed`, a `q` to embed.',
    },
  ],
  setup(ctx) {
    const background = searchJobs({
      jobs: ctx.jobs,
      log: ctx.log,
      engine: () => engine,
      buildConcurrency: () => ctx.kernels.threads,
      maxSegments: () => ctx.config.maxSegments,
    });
    // The operator's embedders: their endpoints are trusted (no address policy), the limits apply.
    const embedders = new EmbedderCatalog(ctx.config.embedders, {
      fetch: async (url, { timeoutMs, ...init }) => {
        const res = await ctx.outbound.fetch(url, { ...init, trusted: true, timeoutMs, maxBytes: 256 * 1024 * 1024 });
        return { status: res.status, headers: res.headers, text: () => res.text() };
      },
      onUpstreamError: (detail) => ctx.log.warn(detail, 'embedding endpoint failed'),
    });
    const images = registerImageFeatures(ctx);
    const engine = new SearchEngine({
      store: ctx.store,
      kernels: () => ctx.kernels,
      log: ctx.log,
      graphBuilds: background.graphBuilds,
      embedders,
      reindexes: background.reindexes,
    });
    ctx.provide(SEARCH_ENGINE, { useValue: engine });
    ctx.provide(SEARCH_SERVICE, { useValue: createSearchService(engine, () => ctx.kernels) });
    // Merges follow writes: the engine's `documents.written` event, as every other subscriber's.
    engine.on('documents.written', ({ tenant, index }) => {
      if (engine.has(tenant, index)) background.scheduleMerge(engine.get(tenant, index));
    });
    const sizeOf = indexSizes(ctx.store);
    engine.indexStats = (tenant, name, index, { sizes }) => ({
      ...(sizes ? sizeOf(index) : {}),
      ...(imageFieldsOf(index.record.mappings).length > 0 ? { visual: images.visual.statsOf(tenant, name) } : {}),
    });
    images.attach(engine);
    const autocomplete = new Autocomplete({
      engine: () => engine,
      store: ctx.store,
      jobs: ctx.jobs,
      log: ctx.log,
      maxQueries: ctx.config.autocompleteMaxQueries,
    });
    autocomplete.attach(engine);
    ctx.provide(AUTOCOMPLETE_SERVICE, { useValue: autocomplete });
    registerRoutes(ctx, () => engine, {
      searched: (tenant, index, q, total) =>
        void autocomplete.searched(tenant, index, q, total).catch((err: unknown) => ctx.log.warn({ err, index }, 'search not counted for autocomplete')),
    });
    registerAutocompleteRoutes(ctx, autocomplete);
    registerConfigRoutes(ctx, () => engine, new ConfigPlans(() => engine));
    registerVisualSuggestions(autocomplete, () => engine);
    ctx.onStart(() => engine.load());
    ctx.onStop(() => engine.close());
  },
});

export { canSeeIndex, indexPatternPattern, tokenMayUse } from './http/index-scope.js';
export { visualTerms, type VisualTerm, type VisualTermType } from './image/visual-terms.js';
export { IMAGE_METADATA_SERVICE, type ImageMetadataService, type AnalysedBytes } from './image/image-metadata-service.js';
export type { ImageMetadata } from './image/image-metadata.js';
export type { VisualDocumentField } from './image/visual-extraction.js';
export type { SearchEngine } from './index/search-engine.js';
export type * from './service.js';
export { SuggestionDictionary, type SuggestionEntry, type DictionaryMatch } from './autocomplete/suggestion-dictionary.js';
export { normaliseSuggestion, parsePrefixQuery, suggestionWords, type PrefixQuery } from './autocomplete/normalize.js';
export type { SuggestionSource, SuggestionType, IncludeFlag, IndexScope } from './autocomplete/suggestion-source.js';
export type { AutocompleteService, AutocompleteRequest, AutocompleteSuggestion } from './autocomplete/autocomplete-service.js';
export type { SearchIndex } from './index/search-index.js';
export type { UpsertResult } from './index/index-record.js';
