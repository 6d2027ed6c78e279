import type { QueryExpander } from './search/query-expansion.js';

export type { QueryExpander, QueryExpansion } from './search/query-expansion.js';

/**
 * What other plugins see of the search engine (`SEARCH_SERVICE` from `plugins/search/index.ts`): a
 * narrow interface with events, never the engine's classes. Graph, autocomplete, crawler, scanner,
 * the control plane, bulk and the agent's semantic cache are written against it.
 *
 * Every call names the tenant it acts in (`request.tenant` in a route); an index belongs to the
 * tenant that created it, and another tenant's index does not exist for a caller.
 */

/** A field mapping as a client writes it (seed 000's FieldMapping). */
export interface FieldMappingSpec {
  type: 'text' | 'keyword' | 'number' | 'boolean' | 'date' | 'geo_point';
  analyzer?: string;
  index?: boolean;
  /** Keyword fields only: the value references an image, enriched at ingest (`_visual`). */
  image?: boolean;
}

/** `POST /v1/indexes` as data: `{name, mappings, settings}` (settings as docs/api.md lists them). */
export interface IndexSpec {
  name: string;
  mappings?: Record<string, FieldMappingSpec>;
  settings?: Record<string, unknown>;
}

/** An index as `GET /v1/indexes/{name}` shows it (seed 000's IndexDefinition with its statistics). */
export interface IndexInfo {
  name: string;
  mappings: Record<string, { type: string; analyzer?: string; index: boolean; image?: true }>;
  settings: Record<string, unknown>;
  docCount: number;
  createdAt: string;
  updatedAt: string;
  stats: Record<string, unknown>;
}

/** The search body of `POST /v1/indexes/{name}/search` (SearchQuery of seed 000 and docs/api.md). */
export type SearchRequest = Record<string, unknown> & { q?: string; mode?: 'keyword' | 'semantic' | 'hybrid' | 'geo'; size?: number; vector?: number[] };

export interface SearchHit {
  id: string;
  score: number;
  source: Record<string, unknown>;
  highlight?: Record<string, string[]>;
  [extra: string]: unknown;
}

export interface SearchResponse {
  total: number;
  tookMs: number;
  hits: SearchHit[];
}

export interface WriteResult {
  indexed: number;
  ids: string[];
  errors: Array<{ position: number; id?: string; code: string; message: string }>;
}

/**
 * Buffers writes to one index and applies them in batches (one segment per batch): what a crawl, a
 * scan or a bulk stream uses. `flush` applies what is buffered and resolves with its results;
 * acknowledged results are durable.
 */
export interface BatchWriter {
  upsert(document: Record<string, unknown>): Promise<void>;
  delete(id: string): Promise<void>;
  flush(): Promise<{ written: WriteResult; deleted: number }>;
  /** Flush and stop accepting writes. */
  close(): Promise<{ written: WriteResult; deleted: number }>;
}

export interface SearchEvents {
  /** After a write committed: the ids written (upserted) and deleted. */
  'documents.written': { tenant: string; index: string; upserted: string[]; deleted: string[] };
  'index.created': { tenant: string; index: string };
  'index.changed': { tenant: string; index: string; reindexed: boolean };
  'index.dropped': { tenant: string; index: string };
}

export interface SearchService {
  /** The tenant's indexes, by name. */
  indexes(tenant: string): IndexInfo[];
  get(tenant: string, name: string): IndexInfo | undefined;
  /** Create; 409 `index_exists` when the name is taken in the tenant. */
  create(tenant: string, spec: IndexSpec): Promise<IndexInfo>;
  /** Create unless it exists; an existing index is returned as it is. */
  ensure(tenant: string, spec: IndexSpec): Promise<IndexInfo>;
  drop(tenant: string, name: string): Promise<boolean>;
  search(tenant: string, name: string, query: SearchRequest): Promise<SearchResponse>;
  upsert(tenant: string, name: string, documents: readonly unknown[]): Promise<WriteResult>;
  delete(tenant: string, name: string, ids: readonly string[]): Promise<number>;
  getDocument(tenant: string, name: string, id: string): Record<string, unknown> | undefined;
  /** The ids of the index's live documents, in storage order (empty for an unknown index). */
  documentIds(tenant: string, name: string): string[];
  writer(tenant: string, name: string, options?: { batchDocs?: number }): BatchWriter;
  on<K extends keyof SearchEvents>(event: K, handler: (payload: SearchEvents[K]) => void): () => void;
  /**
   * Offers `expand: "<name>"` on keyword and hybrid searches of every index (the graph plugin
   * registers `graph`): the expander answers terms to add at a lower weight and related documents
   * to boost (docs/search-query.md, "Query expansion"). Returns a function that unregisters it.
   */
  registerExpander(name: string, expander: QueryExpander): () => void;
  /**
   * The index's visual terms (from image fields' `_visual`): colours, motifs and visual tags with
   * the number of live documents holding each, most frequent first; `prefix` matches the start of
   * the term or of one of its words. Empty for an unknown index or one without image fields.
   */
  visualTerms(
    tenant: string,
    name: string,
    options?: { prefix?: string; types?: ReadonlyArray<'visual_tag' | 'motif' | 'color'>; limit?: number },
  ): Array<{ text: string; type: 'visual_tag' | 'motif' | 'color'; count: number; docId: string }>;
}
