/**
 * Where the search engine's background work runs. In the plugin that is `ctx.jobs`: vector graph
 * builds and segment merges are jobs like any other plugin's, listed in `/v1/system`, counted in
 * the job metrics, stopped by shutdown within its limit. A `SearchEngine` used on its own
 * (benchmarks) runs its graph builds one at a time in-process instead.
 */
import type { JobsService, Logger } from 'tessera-runtime/plugin';
import type { SearchEngine } from './search-engine.js';
import type { SearchIndex } from './search-index.js';
import { mergeSelection } from './segment-merge.js';
import type { GraphBuildLabel, GraphBuildRunner, GraphBuildWork, ReindexProgress, ReindexRunner } from './runners.js';

export const GRAPH_BUILD_JOB = 'graph-build';
export const REINDEX_JOB = 'reindex';
export const MERGE_JOB = 'merge-segments';
export const TRAIN_JOB = 'train-embedder';

interface GraphBuildInput extends GraphBuildLabel {
  /** Names the work of this process; a job left queued by an earlier process finds none. */
  token: string;
}

interface MergeInput {
  tenant: string;
  index: string;
  uuid: string;
}

const aborted = (): AbortSignal => AbortSignal.abort(new Error('shutdown'));

/**
 * Defines the search plugin's two jobs on `jobs` and returns what the engine and the write path
 * call. `engine` is read lazily: the engine is built with the returned graph runner.
 */
export function searchJobs(deps: {
  jobs: JobsService;
  log: Logger;
  engine: () => SearchEngine;
  /** Graph builds at once: the kernel pool's threads. */
  buildConcurrency: () => number;
  maxSegments: () => number;
}): { graphBuilds: GraphBuildRunner; scheduleMerge(index: SearchIndex): void; reindexes: ReindexRunner } {
  const { jobs, log } = deps;
  const works = new Map<string, GraphBuildWork>();
  let tokens = 0;

  jobs.define<GraphBuildInput, { built: boolean }>(
    GRAPH_BUILD_JOB,
    async (job) => {
      const work = works.get(job.input.token);
      // Queued by a process that has since stopped: its segments' graphs are built again at load.
      if (!work) return { built: false };
      works.delete(job.input.token);
      const total = Math.max(1, job.input.nodes);
      await work(job.signal, (n) => job.progress(Math.min(1, n / total), { inserted: n, nodes: job.input.nodes }));
      return { built: !job.signal.aborted };
    },
    // A build cut by a crash or shutdown is not retried: loading the index queues it anew.
    { concurrency: () => Math.max(1, deps.buildConcurrency()), onInterrupt: 'fail' },
  );

  const graphBuilds: GraphBuildRunner = async (label, work) => {
    const token = `${process.pid}.${++tokens}`;
    works.set(token, work);
    try {
      const job = await jobs.enqueue<GraphBuildInput>(GRAPH_BUILD_JOB, { ...label, token }, { tenant: label.tenant });
      await jobs.wait(job.id);
      // An HNSW index waits for its largest segment's graph before merging into it (segment-merge.ts).
      const engine = deps.engine();
      if (engine.has(label.tenant, label.index)) scheduleMerge(engine.get(label.tenant, label.index));
    } catch (err) {
      log.debug({ err, index: label.index, segment: label.segment }, 'vector graph build not queued');
    } finally {
      // Not run (refused at shutdown, or cancelled while queued): run it aborted, so it frees its blocks.
      const left = works.get(token);
      works.delete(token);
      if (left) await left(aborted(), () => undefined);
    }
  };

  const merging = new Set<string>();
  jobs.define<MergeInput, { segmentsBefore: number; segmentsAfter: number } | { merged: false }>(
    MERGE_JOB,
    async (job) => {
      const index = deps
        .engine()
        .all()
        .find((i) => i.record.uuid === job.input.uuid);
      // Dropped (or dropped and re-created) since it was queued: nothing to merge.
      if (!index) return { merged: false };
      const segmentsBefore = index.segments.length;
      await index.mergeIfNeeded(deps.maxSegments());
      return { segmentsBefore, segmentsAfter: index.segments.length };
    },
    // A merge cut by a crash is queued again at the next start; its writes are transactional.
    { concurrency: 1, onInterrupt: 'retry' },
  );

  // corpus-lsa-v1 learns the corpus as it grows (corpus-lsa.ts, trainingDue): after a write that
  // makes training due, one job per index trains and re-embeds; writes wait behind it as behind
  // any re-index. A training cut by a crash is retried at start (its writes are one transaction).
  const training = new Set<string>();
  jobs.define<MergeInput, { trained: boolean; docs?: number }>(
    TRAIN_JOB,
    async (job) => {
      const index = deps
        .engine()
        .all()
        .find((i) => i.record.uuid === job.input.uuid);
      if (!index?.embedderTrainingDue()) return { trained: false };
      await index.retrainEmbedder();
      return { trained: true, docs: index.docCount };
    },
    { concurrency: 1, onInterrupt: 'retry' },
  );
  const scheduleTraining = (index: SearchIndex): void => {
    const { tenant, uuid } = index.record;
    if (training.has(uuid) || !index.embedderTrainingDue()) return;
    training.add(uuid);
    void jobs
      .enqueue<MergeInput>(TRAIN_JOB, { tenant, index: index.name, uuid }, { tenant, key: `${tenant}/${uuid}`, keyScope: 'active' })
      .then((job) => jobs.wait(job.id))
      .then(
        (job) => {
          training.delete(uuid);
          if (job.state === 'completed') scheduleTraining(index);
          else log.warn({ index: index.name, state: job.state }, 'embedder training did not complete; the next write retries it');
        },
        (err) => {
          training.delete(uuid);
          log.debug({ err, index: index.name }, 'embedder training not queued');
        },
      );
  };

  /** After a write: merge segments past the limit, and train the embedder when due. */
  const scheduleMerge = (index: SearchIndex): void => {
    scheduleTraining(index);
    const { tenant, uuid } = index.record;
    if (merging.has(uuid) || !mergeSelection(index.segments, deps.maxSegments(), 4)) return;
    merging.add(uuid);
    const input: MergeInput = { tenant, index: index.name, uuid };
    void jobs
      .enqueue<MergeInput>(MERGE_JOB, input, { tenant, key: `${tenant}/${uuid}`, keyScope: 'active' })
      .then((job) => jobs.wait(job.id))
      .then(
        (job) => {
          merging.delete(uuid);
          // A write that landed after the merge's last look found it still marked as merging. (A
          // failed merge waits for the next write instead of retrying in a loop.)
          if (job.state === 'completed') scheduleMerge(index);
        },
        // Shutting down: the merge happens after the next start's first write instead.
        (err) => {
          merging.delete(uuid);
          log.debug({ err, index: index.name }, 'segment merge not queued');
        },
      );
  };

  // A re-index is a job so that its progress shows while the PATCH waits; it is not retried after
  // a crash (the client that asked has no answer to wait for), and the index is unchanged then.
  const reindexWorks = new Map<string, (progress: ReindexProgress) => Promise<void>>();
  jobs.define<{ tenant: string; index: string; docs: number; token: string }, { reindexed: boolean }>(
    REINDEX_JOB,
    async (job) => {
      const work = reindexWorks.get(job.input.token);
      if (!work) return { reindexed: false };
      reindexWorks.delete(job.input.token);
      await work((phase, done, total) => job.progress(total === 0 ? 1 : Math.min(1, done / total), { phase, done, total }));
      return { reindexed: true };
    },
    { concurrency: 2, onInterrupt: 'fail' },
  );
  const reindexes: ReindexRunner = async (label, work) => {
    const token = `${process.pid}.${++tokens}`;
    let failure: unknown;
    let ran = false;
    reindexWorks.set(token, async (progress) => {
      ran = true;
      try {
        await work(progress);
      } catch (err) {
        failure = err;
        throw err;
      }
    });
    try {
      const job = await jobs.enqueue(REINDEX_JOB, { ...label, token }, { tenant: label.tenant });
      const done = await jobs.wait(job.id);
      if (failure !== undefined) throw failure;
      if (!ran || done.state !== 'completed') throw new Error(`The re-index of "${label.index}" did not run (job ${done.state}); the index is unchanged.`);
    } finally {
      reindexWorks.delete(token);
    }
  };

  return { graphBuilds, scheduleMerge, reindexes };
}
