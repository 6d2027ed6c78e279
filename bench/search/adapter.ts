/**
 * The contract every engine in the search benchmark implements: peers (one file each) and, when it
 * lands, Tessera's own engine. `run.ts` only ever talks to this interface.
 */

/** One document as every engine sees it: the same id, title and text for all of them. */
export interface BenchDoc {
  id: string;
  title: string;
  text: string;
}

/**
 * A search client that goes through a real HTTP listener (the "over HTTP" columns). Only an engine
 * that serves HTTP provides one; the bench never fakes these numbers.
 */
export interface HttpSearchClient {
  /** Same meaning as {@link SearchAdapter.search}, answered over HTTP. */
  search(query: string, k: number): Promise<string[]>;
  /** Stops the listener and frees whatever the client holds. */
  close(): Promise<void>;
}

export interface SearchAdapter {
  /** Short stable name, used on the command line and in every JSON line. */
  readonly name: string;
  /** Free-form description of the configuration (library version, analyzer, ranking). */
  readonly description: string;
  /** Indexes all documents; when it resolves, every document is searchable. Called once. */
  build(docs: BenchDoc[]): Promise<void>;
  /** Full-text search over title and text: up to `k` document ids, best first. */
  search(query: string, k: number): Promise<string[]>;
  /** Bytes the index occupies on disk, for engines that keep one; absent for in-memory engines. */
  sizeBytes?(): number;
  /**
   * Hook for the "over HTTP" latency columns: called after `build`, starts (or connects to) the
   * engine's HTTP listener serving the same index and returns a client for it. Peers do not have
   * one; Tessera's adapter provides it.
   */
  overHttp?(): Promise<HttpSearchClient>;
  /** Frees memory, closes files, deletes temporary files. */
  close(): Promise<void>;
}

/** Creates a fresh, unbuilt adapter. Factories import their library lazily. */
export type AdapterFactory = () => Promise<SearchAdapter>;

/** Splits a query into word terms (Unicode letters and digits) for engines that need plain terms. */
export function queryTerms(query: string): string[] {
  return query.match(/[\p{L}\p{N}]+/gu) ?? [];
}
