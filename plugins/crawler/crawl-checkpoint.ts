import type { StoreNamespace } from 'tessera-runtime/plugin';
import type { CrawlReportState } from './crawl-report.js';
import type { SitemapsState } from './crawl-sitemaps.js';
import type { FrontierDelta, FrontierItem, FrontierState } from './frontier.js';

/** Bumped when the stored shape changes; a checkpoint of another format is ignored (the run starts afresh). */
const FORMAT = 1;

/** A crawl's numbers and progress at a checkpoint: what the resumed run carries on from. */
export interface CheckpointMeta extends SitemapsState {
  format: number;
  report: CrawlReportState;
  pagesRequested: number;
  revisitsQueued: boolean;
  savedAt: string;
}

export interface Checkpoint extends FrontierState {
  meta: CheckpointMeta;
  queue: Array<[number, FrontierItem]>;
  seen: string[];
  documented: string[];
}

/** Entries of a job's frontier: `q` waiting items by number, `s` seen URLs, `d` document URLs. */
type Key = [string, 'q', number] | [string, 's', string] | [string, 'd', string];

/**
 * Running crawls' frontiers, in the plugin's LMDB namespace, keyed by job: saved at each checkpoint
 * in the same transaction as the page states of the batch the index acknowledged, and written as a
 * delta (what was queued, visited, seen or documented since the last one), so the cost of a
 * checkpoint follows the work done since, not the size of the frontier.
 */
export class CheckpointStore {
  private readonly store: StoreNamespace;
  private readonly runs;
  private readonly frontier;

  constructor(store: StoreNamespace) {
    this.store = store;
    this.runs = store.db('crawl-runs');
    this.frontier = store.db('crawl-frontier');
  }

  load(jobId: string): Checkpoint | undefined {
    const meta = this.runs.get(jobId) as CheckpointMeta | undefined;
    if (!meta || meta.format !== FORMAT) return undefined;
    const queue: Array<[number, FrontierItem]> = [];
    const seen: string[] = [];
    const documented: string[] = [];
    for (const { key, value } of this.frontier.getRange({ start: [jobId], end: [`${jobId}\u0000`] })) {
      const [, kind, at] = key as Key;
      if (kind === 'q') queue.push([at, value as FrontierItem]);
      else if (kind === 's') seen.push(at);
      else if (kind === 'd') documented.push(at);
    }
    return { meta, queue, seen, documented };
  }

  /**
   * Writes a checkpoint: `alongside` (the batch's page states) and the frontier's delta, in one
   * transaction, so a crash leaves either both or neither.
   */
  async save(jobId: string, delta: FrontierDelta, meta: Omit<CheckpointMeta, 'format' | 'savedAt'>, alongside?: () => void): Promise<void> {
    await this.store.transaction(() => {
      alongside?.();
      for (const [seq, item] of delta.queued) void this.frontier.put([jobId, 'q', seq] satisfies Key, item);
      for (const seq of delta.visited) void this.frontier.remove([jobId, 'q', seq] satisfies Key);
      for (const url of delta.seen) void this.frontier.put([jobId, 's', url] satisfies Key, 1);
      for (const url of delta.documented) void this.frontier.put([jobId, 'd', url] satisfies Key, 1);
      void this.runs.put(jobId, { ...meta, format: FORMAT, savedAt: new Date().toISOString() } satisfies CheckpointMeta);
    });
  }

  /** Forgets a job's checkpoint (the job ended, or never will resume). */
  async drop(jobId: string): Promise<void> {
    const keys = [...this.frontier.getKeys({ start: [jobId], end: [`${jobId}\u0000`] })];
    if (keys.length === 0 && this.runs.get(jobId) === undefined) return;
    await this.store.transaction(() => {
      void this.runs.remove(jobId);
      for (const key of keys) void this.frontier.remove(key);
    });
  }

  /** Drops the checkpoints of jobs that will not resume (finished, or deleted by retention). */
  async sweep(resumable: (jobId: string) => boolean): Promise<number> {
    let dropped = 0;
    for (const jobId of [...this.runs.getKeys()] as string[]) {
      if (resumable(jobId)) continue;
      await this.drop(jobId);
      dropped++;
    }
    return dropped;
  }
}
