import type { Logger } from 'pino';
import type { HnswGraphBlock, KernelRunner, Metric, VectorBlock } from 'tessera-runtime/kernels';
import type { IndexDatabases, IndexRecord } from './index-record.js';
import { hnswSettings, KERNEL_METRICS, type HnswSettings, type LoadedSegment, type SegmentGraph } from './loaded-segment.js';
import type { GraphBuildRunner } from './runners.js';

/**
 * One index's HNSW graphs: loaded from LMDB when they were built under the current settings,
 * otherwise built in the background (the plugin's `graph-build` jobs), seeded from a merge's
 * largest segment when there is one. Until a segment's graph is ready, searches scan it.
 */
export class SegmentGraphs {
  /** This index's builds not yet finished. */
  private readonly pending = new Set<Promise<void>>();
  private readonly host: {
    record: () => IndexRecord;
    dbs: IndexDatabases;
    kernels: () => KernelRunner;
    log: Logger;
    runner: GraphBuildRunner;
  };

  constructor(host: SegmentGraphs['host']) {
    this.host = host;
  }

  /**
   * A segment's graph under the current settings: the persisted one when it was built with them,
   * otherwise a build queued in the background. Until it is ready, searches scan the segment.
   */
  graphFor(segId: number, vectors: VectorBlock, seed?: HnswGraphBlock): SegmentGraph | undefined {
    const hnsw = hnswSettings(this.host.record().settings);
    if (!hnsw) return undefined;
    const metric = KERNEL_METRICS[this.host.record().settings.vectorMetric ?? 'cosine']!;
    const runner = this.host.kernels();
    const state: SegmentGraph = { status: 'building', inserted: 0, total: vectors.count, abort: new AbortController() };
    const stored = this.host.dbs.graphs.get([this.host.record().uuid, segId]);
    if (stored) {
      try {
        const block = runner.loadHnswGraph(vectors, stored);
        if (block.m === hnsw.m && block.efConstruction === hnsw.efConstruction && block.metric === metric) {
          return Object.assign(state, { status: 'ready' as const, block, inserted: vectors.count });
        }
        runner.release(block);
      } catch (err) {
        this.host.log.warn({ index: this.host.record().name, segment: segId, err: (err as Error).message }, 'stored vector graph unusable; rebuilding it');
      }
    }
    // A merge hands over its largest segment's graph: copied now, while that segment still holds it,
    // so the build only inserts the other segments' rows.
    let premade: HnswGraphBlock | undefined;
    if (seed) {
      try {
        premade = runner.createHnswGraph(vectors, { metric, m: hnsw.m, efConstruction: hnsw.efConstruction, seed: segId, from: seed });
        state.inserted = runner.hnswInserted(premade);
      } catch (err) {
        this.host.log.warn(
          { index: this.host.record().name, segment: segId, err: (err as Error).message },
          'merged segment graph cannot start from its largest part; building it whole',
        );
      }
    }
    const label = { tenant: this.host.record().tenant, index: this.host.record().name, segment: segId, nodes: vectors.count };
    const pending = this.host.runner(label, (signal, inserted) => {
      // Shutdown or cancel of the job abandons the build as a merge or drop does.
      if (signal.aborted) state.abort.abort();
      else signal.addEventListener('abort', () => state.abort.abort(), { once: true });
      return this.buildGraph(segId, state, vectors, hnsw, metric, premade, inserted);
    });
    this.pending.add(pending);
    void pending.finally(() => this.pending.delete(pending));
    return state;
  }

  /** Never throws: a failed build leaves the segment scanned, and the queue goes on. */
  private async buildGraph(
    segId: number,
    state: SegmentGraph,
    vectors: VectorBlock,
    hnsw: HnswSettings,
    metric: Metric,
    premade: HnswGraphBlock | undefined,
    inserted: (n: number) => void,
  ): Promise<void> {
    const runner = this.host.kernels();
    const uuid = this.host.record().uuid;
    const started = performance.now();
    let block: HnswGraphBlock | undefined = premade;
    const reused = premade ? state.inserted : 0;
    const discard = (): void => {
      // The runner may already be closed (shutdown during a build): nothing left to free then.
      if (block && !runner.closed) runner.release(block);
      block = undefined;
    };
    if (state.abort.signal.aborted) {
      discard();
      return;
    }
    try {
      // Seeded by the segment id: the same documents in the same segment build the same graph.
      block ??= runner.createHnswGraph(vectors, { metric, m: hnsw.m, efConstruction: hnsw.efConstruction, seed: segId });
      // An int8 index builds on its codes too: 2.3x faster on mnist10k for the same recall.
      await runner.buildHnsw({
        graph: block,
        vectors,
        signal: state.abort.signal,
        onProgress: (n) => {
          state.inserted = n;
          inserted(n);
        },
        quantized: vectors.int8 !== null,
      });
      if (!state.abort.signal.aborted) await this.host.dbs.graphs.put([uuid, segId], Buffer.from(runner.hnswGraphBytes(block)));
      if (state.abort.signal.aborted) {
        // The segment was merged or dropped meanwhile; its graph row may just have been written.
        discard();
        await this.host.dbs.graphs.remove([uuid, segId]);
        return;
      }
    } catch (err) {
      discard();
      if (state.abort.signal.aborted) return;
      state.status = 'failed';
      state.error = (err as Error).message;
      this.host.log.error({ index: this.host.record().name, segment: segId, err }, 'vector graph build failed; the segment is scanned instead');
      return;
    }
    Object.assign(state, { status: 'ready', block });
    this.host.log.info(
      { index: this.host.record().name, segment: segId, nodes: vectors.count, reused, ms: Math.round(performance.now() - started) },
      'vector graph built',
    );
  }

  /** Resolves when every graph build of this index queued so far has finished (tests, benchmarks). */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all(this.pending);
  }

  /** Stops the segment's build or frees its graph. */
  release(segment: LoadedSegment): void {
    const graph = segment.graph;
    if (!graph) return;
    graph.abort.abort();
    // A build in flight releases its own block when it sees the abort.
    const runner = this.host.kernels();
    if (graph.status === 'ready' && graph.block && !runner.closed) runner.release(graph.block);
    graph.status = 'released';
    graph.block = undefined;
  }
}
