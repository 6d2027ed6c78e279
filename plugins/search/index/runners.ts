/**
 * Where an index's background work runs, as the index sees it: graph builds and re-indexes go
 * through these runners. The plugin's runners are jobs (background.ts); a `SearchEngine` used on
 * its own (benchmarks) builds graphs one at a time in-process and re-indexes directly.
 */

/** Where a re-index is: reading sources, training the embedder, embedding, building the segment. */
export type ReindexProgress = (phase: 'read' | 'train' | 'embed' | 'build', done: number, total: number) => void;

export interface GraphBuildLabel {
  tenant: string;
  index: string;
  segment: number;
  nodes: number;
}

/** A build of one segment's graph; `inserted` reports how many nodes are in so far. */
export type GraphBuildWork = (signal: AbortSignal, inserted: (n: number) => void) => Promise<void>;

/**
 * Runs `work` exactly once, when a slot is free, and resolves after it. When the work cannot be
 * run (shutting down), it still runs, with an aborted signal, so it can release what it holds.
 */
export type GraphBuildRunner = (label: GraphBuildLabel, work: GraphBuildWork) => Promise<void>;

/** One build at a time, in the order queued. */
export function serialGraphBuilds(): GraphBuildRunner {
  let tail: Promise<void> = Promise.resolve();
  return (_label, work) => {
    const run = tail.then(() => work(new AbortController().signal, () => undefined));
    tail = run.catch(() => undefined);
    return run;
  };
}

/**
 * Runs a re-index (a PATCH that changes analysis) and resolves or rejects as it does: the caller
 * gets the re-index's own error (422 reindex_failed, 502 embedding_failed).
 */
export type ReindexRunner = (label: { tenant: string; index: string; docs: number }, work: (progress: ReindexProgress) => Promise<void>) => Promise<void>;

export const directReindex: ReindexRunner = (_label, work) => work(() => undefined);
