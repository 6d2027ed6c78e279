import { Deadline } from './deadline.js';
import { z } from 'zod';
import type { KernelRunner } from 'tessera-runtime/kernels';
import { InputError } from 'tessera-runtime/plugin';
import { CORPUS_LSA_V1 } from '../embedders/corpus-lsa.js';
import { embedderFor, embedQueryText, isLexicalEmbedder } from '../embedders/embedder.js';
import { DEFAULT_FUSION, DEFAULT_SEMANTIC_RATIO, defaultSemanticRatio } from './fusion.js';
import { parseFilter, type FilterNode } from '../query/filter.js';
import type { SearchIndex } from '../index/search-index.js';
import { fetchHits, type Hit, type Ranked } from './fetch.js';
import { compileProjection } from './projection.js';
import { geoExtra, rankGeo, type GeoRanked, type GeoSpec } from './search-geo.js';
import { fusions, fuse, type Fused, type FusionOptions } from './search-hybrid.js';
import { fieldScorings, rankKeyword, type ExpansionMatch, type KeywordRanking } from './search-keyword.js';
import { rankByVector, type VectorSearchOptions } from './search-vector.js';
import { highlighterFor, planTextQuery, type TextQuery, type TextQueryInput } from './text-query.js';
import { planExpansion, type QueryExpanders, type QueryExpansion } from './query-expansion.js';

const sortSchema = z
  .array(z.union([z.string().min(1), z.record(z.string(), z.enum(['asc', 'desc']))]))
  .transform((items) =>
    items.flatMap((item) =>
      typeof item === 'string'
        ? [{ field: item.replace(/:(asc|desc)$/, ''), order: item.endsWith(':desc') ? ('desc' as const) : ('asc' as const) }]
        : Object.entries(item).map(([field, order]) => ({ field, order })),
    ),
  );

/** A search's time budget when the plugin's `searchTimeoutMs` option is not set. */
export const defaultSearchTimeoutMs = 10_000;

/** SearchQuery of seed 000, plus `from`, `sort` and `filter`. Unknown keys are errors. */
export const searchQuerySchema = z.strictObject({
  q: z.string().max(10_000).optional(),
  fields: z.array(z.string().min(1)).optional(),
  mode: z.enum(['keyword', 'semantic', 'hybrid', 'geo']).default('keyword'),
  operator: z.enum(['AND', 'OR']).optional(),
  minimumShouldMatch: z.union([z.string(), z.number().int()]).optional(),
  /** How a word found in several text fields scores: `bm25f` (default), `sum` or `best` (dis-max). */
  fieldScoring: z.enum(fieldScorings).default('bm25f'),
  /** `fieldScoring: best`: the share of the other fields' scores added to the best field's. */
  tieBreaker: z.number().min(0).max(1).default(0),
  highlight: z.boolean().default(true),
  size: z.number().int().min(0).max(1000).default(10),
  from: z.number().int().min(0).max(100_000).default(0),
  sort: sortSchema.optional(),
  projection: z.record(z.string(), z.union([z.literal(0), z.literal(1)])).optional(),
  select: z.array(z.string().min(1)).optional(),
  filter: z.unknown().optional(),
  /** Query vector for `semantic` and `hybrid` (vectorDimensions finite numbers). */
  vector: z.array(z.number()).max(4096).optional(),
  /** `hybrid`: how the two sides combine: `convex` (normalised scores, default) or `rrf` (ranks); fusion.ts. */
  fusion: z.enum(fusions).default(DEFAULT_FUSION),
  rrfK: z.number().min(0).default(60),
  windowSize: z.number().int().min(1).max(1000).default(100),
  /** `hybrid`: the semantic side's weight; left out, 0.3, or 0 for a lexical embedder (fusion.ts). */
  semanticRatio: z.number().min(0).max(1).optional(),
  explain: z.boolean().default(false),
  /** `keyword` and `hybrid`: add a registered expander's terms and related documents (`graph`; query-expansion.ts). */
  expand: z.string().min(1).max(64).optional(),
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
      boundingBox: z
        .strictObject({ topLeft: z.strictObject({ lat: z.number(), lon: z.number() }), bottomRight: z.strictObject({ lat: z.number(), lon: z.number() }) })
        .optional(),
    })
    .optional(),
});

export type SearchBody = z.output<typeof searchQuerySchema>;

/**
 * One search, as `POST /v1/indexes/{name}/search` and the search service run it: the checks that
 * need the index, the query vector (given, or embedded from `q` by the index's embedder), the
 * filter; then the phases (search()). Answers seed 000's SearchResult.
 */
export async function runSearch(
  index: SearchIndex,
  kernels: KernelRunner,
  body: SearchBody,
  limits: { timeoutMs?: number; expanders?: QueryExpanders } = {},
): Promise<{ ok: true; total: number; tookMs: number; hits: unknown[] }> {
  const started = performance.now();
  const deadline = new Deadline(limits.timeoutMs ?? defaultSearchTimeoutMs);
  if (body.mode === 'geo' && !body.geo) {
    throw new InputError('invalid_geo_query', 'Search mode "geo" needs "geo": {lat, lon, radius} or {boundingBox}.', { details: { path: 'geo' } });
  }
  if (body.projection && body.select) {
    throw new InputError('invalid_projection', 'Use either "projection" or "select", not both.');
  }
  let vector = body.vector;
  let semanticSide: { embedder: string; lexical: boolean; untrained: boolean } | undefined;
  if ((body.mode === 'semantic' || body.mode === 'hybrid') && vector === undefined) {
    const dims = index.record.settings.vectorDimensions;
    if (!index.record.settings.autoEmbed || dims === undefined || !body.q?.trim()) {
      throw new InputError('vector_required', `Search mode "${body.mode}" needs a query "vector", or "q" on an index with autoEmbed.`, {
        details: { mode: body.mode },
      });
    }
    // By the embedder that made the stored vectors; the built-in v2 weights the query by idf.
    const embedder = embedderFor(index.record.settings, index.embeddingCorpus(), index.embedders)!;
    const e = index.record.settings.embedder;
    const untrained = typeof e === 'object' && e.type === 'builtin' && e.model === CORPUS_LSA_V1 && embedder.name !== CORPUS_LSA_V1;
    semanticSide = { embedder: embedder.name, lexical: isLexicalEmbedder(embedder.name), untrained };
    vector = await embedQueryText(embedder, body.q);
  }
  const ratio =
    body.semanticRatio !== undefined ? { value: body.semanticRatio, source: 'request' as const } : defaultSemanticRatio(semanticSide ?? { lexical: false });
  if (body.sort) checkSort(body.sort, index.record.mappings);
  let expansion: PhasedSearch['expansion'];
  if (body.expand !== undefined) {
    if (body.mode !== 'keyword' && body.mode !== 'hybrid') {
      throw new InputError('validation_failed', `expand applies to keyword and hybrid searches, not "${body.mode}".`, {
        details: { issues: [{ path: 'expand', message: 'only with mode keyword or hybrid' }] },
      });
    }
    const expanders = limits.expanders;
    if (!expanders)
      throw new InputError('validation_failed', 'This server offers no query expansion.', {
        details: { issues: [{ path: 'expand', message: 'no expanders' }] },
      });
    // Resolved even for an empty q, so a misspelt or disabled expansion is an error at once.
    expansion = { name: body.expand, result: await expanders.expand(body.expand, index, body.q?.trim() ?? '') };
  }
  const filter = body.filter === undefined ? undefined : parseFilter(body.filter, index.record.mappings);
  const result = await search(index, kernels, {
    ...body,
    vector,
    filter,
    deadline,
    semanticRatio: ratio.value,
    ...(expansion ? { expansion } : {}),
    semanticRatioSource: { ...ratio, ...(semanticSide ? { embedder: semanticSide.embedder } : {}) },
  });
  return { ok: true, total: result.total, tookMs: Math.round((performance.now() - started) * 100) / 100, hits: result.hits };
}

/** A search with its inputs checked: what the phases read. */
export interface PhasedSearch extends TextQueryInput, KeywordRanking, VectorSearchOptions, Partial<FusionOptions> {
  mode: 'keyword' | 'semantic' | 'hybrid' | 'geo';
  size: number;
  from: number;
  highlight?: boolean;
  projection?: Record<string, 0 | 1>;
  select?: string[];
  filter?: FilterNode;
  /** `semantic` and `hybrid`: the query vector (vectorDimensions finite numbers). */
  vector?: readonly number[];
  /** `hybrid`: how many documents each side ranks before fusion. @default 100 */
  windowSize?: number;
  explain?: boolean;
  geo?: GeoSpec;
  /** `expand`: what the named expander answered for `q`. */
  expansion?: { name: string; result: QueryExpansion };
}

/**
 * The phases of a search, as Lucene and Orama run them: the query phase parses `q` once (not for
 * `semantic`, nor for `geo` without `q`); a ranking phase per mode answers ids and scores
 * (`hybrid` fuses the keyword and the vector phases' windows); one fetch phase reads, projects and
 * highlights the page.
 */
export async function search(
  index: SearchIndex,
  runner: KernelRunner,
  request: PhasedSearch,
): Promise<{ total: number; hits: Array<Hit & Record<string, unknown>> }> {
  const { mode, from, size, filter, deadline } = request;
  const want = from + size;
  // Query phase.
  const text: TextQuery | undefined = mode === 'semantic' || (mode === 'geo' && !request.q) ? undefined : planTextQuery(index, request);
  if (text && request.expansion && (mode === 'keyword' || mode === 'hybrid')) {
    text.expansion = planExpansion(index, request.expansion.name, request.expansion.result, text.fields, text.leaves);
  }
  // `explain` of an expanded search: per hit, under the expander's name, what came through it.
  const expandedExplain = (matches: Map<string, ExpansionMatch> | undefined, r: Ranked): Record<string, unknown> =>
    matches && text?.expansion ? { [text.expansion.name]: matches.get(r.id) ?? { terms: [], boosted: false, entities: [] } } : {};
  const projection = compileProjection(request.projection, request.select);
  // Ranking phase.
  let total: number;
  let page: Ranked[];
  let extra: ((r: Ranked) => Record<string, unknown>) | undefined;
  if (mode === 'keyword') {
    const keyword = await rankKeyword(index, runner, text!, request, want);
    ({ total } = keyword);
    page = keyword.ranked.slice(from);
    if (request.explain && keyword.expansion) extra = (r) => ({ explain: expandedExplain(keyword.expansion, r) });
  } else if (mode === 'semantic') {
    const semantic = await rankByVector(index, runner, vectorOf(request), Math.max(1, want), filter, request);
    ({ total } = semantic);
    page = semantic.ranked.slice(from, want);
  } else if (mode === 'hybrid') {
    const windowSize = request.windowSize ?? 100;
    const keyword = await rankKeyword(index, runner, text!, request, windowSize);
    const semantic = await rankByVector(index, runner, vectorOf(request), windowSize, filter, request);
    const fusion = {
      fusion: request.fusion,
      rrfK: request.rrfK ?? 60,
      semanticRatio: request.semanticRatio ?? DEFAULT_SEMANTIC_RATIO,
      ...(request.semanticRatioSource ? { semanticRatioSource: request.semanticRatioSource } : {}),
    };
    const fused = await fuse(runner, keyword.ranked, semantic.ranked, fusion, want);
    ({ total } = fused);
    page = fused.ranked.slice(from);
    if (request.explain) extra = (r) => ({ explain: { ...(r as Fused).explain, ...expandedExplain(keyword.expansion, r) } });
  } else {
    const geo = await rankGeo(index, runner, request.geo!, { text, filter });
    ({ total } = geo);
    page = geo.ranked.slice(from, want);
    extra = (r) => geoExtra(r as GeoRanked);
  }
  // Fetch phase.
  const highlight = mode !== 'semantic' && request.highlight !== false ? highlighterFor(index, text) : undefined;
  return { total, hits: fetchHits(index, page, { projection, highlight, extra, deadline }) };
}

function vectorOf(request: PhasedSearch): readonly number[] {
  if (request.vector === undefined)
    throw new InputError('vector_required', `Search mode "${request.mode}" needs a query "vector".`, { details: { mode: request.mode } });
  return request.vector;
}

/** Every sort names a mapped field (or `id`, `_score`) and a direction of asc or desc: 400 `invalid_sort` otherwise. */
function checkSort(sort: ReadonlyArray<{ field: string }>, mappings: Record<string, unknown>): void {
  sort.forEach(({ field }, i) => {
    if (field === 'id' || field === '_score' || Object.hasOwn(mappings, field)) return;
    const direction = /^(.*):([^:]*)$/.exec(field);
    const message =
      direction && (Object.hasOwn(mappings, direction[1]!) || direction[1] === 'id')
        ? `sort[${i}] "${field}" has the direction "${direction[2]}"; use "${direction[1]}:asc" or "${direction[1]}:desc".`
        : `sort[${i}] names "${field}", which is not a mapped field of this index (nor id or _score).`;
    throw new InputError('invalid_sort', message, { details: { path: `sort.${i}`, sort: field } });
  });
}
