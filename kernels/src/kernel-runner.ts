import { availableParallelism } from 'node:os';
import { bitsetFromIds, loadBitset, type BitsetBlock } from './bitset-block.js';
import { BlockLedger, type Block } from './block.js';
import { bm25Search, type Bm25Query, type Bm25Result } from './bm25-search.js';
import { geoNearest, type GeoQuery, type GeoResult } from './geo-nearest.js';
import { loadGeoPoints, type GeoBlock } from './geo-block.js';
import { DEFAULT_INLINE_MAX_BYTES } from './inline-threshold.js';
import {
  buildHnsw,
  createHnswGraph,
  hnswGraphBytes,
  hnswInserted,
  hnswLevel0,
  hnswSearch,
  loadHnswGraph,
  type HnswBuildOptions,
  type HnswGraphBlock,
  type HnswOptions,
  type HnswSearchQuery,
} from './hnsw-graph.js';
import { instantiateKernels } from './instantiate-kernels.js';
import { assertOpen, runInline, runTasks, type ExecutionMode, type KernelContext } from './kernel-context.js';
import type { KernelExports } from './kernel-exports.js';
import { KernelMemory, PAGE_BYTES } from './kernel-memory.js';
import { KernelPool } from './kernel-pool.js';
import type { KernelTask } from './kernel-task.js';
import { loadKernelModule, type KernelBuild } from './load-kernel-module.js';
import { RegionAllocator } from './region-allocator.js';
import { rrfFuse, type RrfQuery } from './rrf-fuse.js';
import { loadDocLengths, loadPostings, postingsView, type DocLengthsBlock, type PostingsBlock } from './text-blocks.js';
import type { TopK } from './top-k.js';
import { loadVectors, type LoadVectorsOptions, type VectorBlock } from './vector-block.js';
import { vectorSearch, type VectorSearchQuery } from './vector-search.js';
import { assertInteger, assertKnownKeys } from './validate.js';

export interface KernelRunnerOptions {
  /** Pool workers; 0 runs everything inline. From the manifest's `kernels.threads`. @default min(2, availableParallelism()) */
  threads?: number;
  /** @default 16 */
  initialMemoryMb?: number;
  /** Upper bound of the shared memory; wasm32 allows 4096. @default 4096 */
  maximumMemoryMb?: number;
  /** Bytes of work above which `auto` calls use the pool. @default DEFAULT_INLINE_MAX_BYTES (measured) */
  inlineMaxBytes?: number;
  /** Which kernels build to load. @default 'release' */
  build?: KernelBuild;
}

const OPTION_KEYS = ['threads', 'initialMemoryMb', 'maximumMemoryMb', 'inlineMaxBytes', 'build'];
const MB_PAGES = (1024 * 1024) / PAGE_BYTES;

/**
 * Runs the kernels: small calls inline on the main thread's instance, large ones split over the
 * Piscina pool, all on one shared memory. Segment data is loaded once (`load*`) and referenced by
 * offset afterwards; `release` gives its memory back.
 */
export class KernelRunner {
  readonly memory: KernelMemory;
  readonly allocator: RegionAllocator;
  /** The main thread's instance, for callers that lay out their own regions. */
  readonly kernels: KernelExports;
  readonly threads: number;
  readonly inlineMaxBytes: number;
  private readonly pool: KernelPool | null;
  private isClosed = false;
  private readonly ctx: KernelContext;

  constructor(options: KernelRunnerOptions = {}) {
    assertKnownKeys('kernel runner options', options, OPTION_KEYS);
    const threads = options.threads ?? Math.min(2, availableParallelism());
    assertInteger('threads', threads, 0, 256);
    const initialMb = options.initialMemoryMb ?? 16;
    const maximumMb = options.maximumMemoryMb ?? 4096;
    assertInteger('maximumMemoryMb', maximumMb, 1, 4096);
    assertInteger('initialMemoryMb', initialMb, 1, maximumMb);
    this.inlineMaxBytes = options.inlineMaxBytes ?? DEFAULT_INLINE_MAX_BYTES;
    assertInteger('inlineMaxBytes', this.inlineMaxBytes, 0);

    const module = loadKernelModule(options.build ?? 'release');
    this.memory = new KernelMemory(initialMb * MB_PAGES, maximumMb * MB_PAGES);
    this.kernels = instantiateKernels(module, this.memory.memory);
    this.allocator = new RegionAllocator(this.memory, this.kernels.heapBase());
    this.threads = threads;
    this.pool = threads > 0 ? new KernelPool({ threads, module, memory: this.memory.memory }) : null;
    const self = this;
    this.ctx = {
      memory: this.memory,
      allocator: this.allocator,
      blocks: new BlockLedger(this.allocator),
      kernels: this.kernels,
      pool: this.pool,
      inlineMaxBytes: this.inlineMaxBytes,
      get closed() {
        return self.isClosed;
      },
    };
  }

  get closed(): boolean {
    return this.isClosed;
  }

  loadVectors(data: ArrayLike<number>, options: LoadVectorsOptions): VectorBlock {
    return loadVectors(this.ctx, data, options);
  }

  loadPostings(docs: Uint32Array, tfs: Uint32Array): PostingsBlock {
    return loadPostings(this.ctx, docs, tfs);
  }

  /** A term's slice of a field-wide postings block (see postingsView): release the parent only. */
  postingsView(parent: PostingsBlock, start: number, count: number): PostingsBlock {
    return postingsView(this.ctx, parent, start, count);
  }

  loadDocLengths(lengths: Uint32Array): DocLengthsBlock {
    return loadDocLengths(this.ctx, lengths);
  }

  loadBitset(words: Uint32Array, count: number): BitsetBlock {
    return loadBitset(this.ctx, words, count);
  }

  loadBitsetFromIds(ids: Iterable<number>, count: number): BitsetBlock {
    return loadBitset(this.ctx, bitsetFromIds(ids, count), count);
  }

  loadGeoPoints(lats: ArrayLike<number>, lons: ArrayLike<number>): GeoBlock {
    return loadGeoPoints(this.ctx, lats, lons);
  }

  /** An empty HNSW graph over a vector block's rows; `buildHnsw` links it. */
  createHnswGraph(vectors: VectorBlock, options: HnswOptions): HnswGraphBlock {
    return createHnswGraph(this.ctx, vectors, options);
  }

  /** Persisted graph bytes back into kernel memory (validated against the block). */
  loadHnswGraph(vectors: VectorBlock, bytes: Uint8Array): HnswGraphBlock {
    return loadHnswGraph(this.ctx, vectors, bytes);
  }

  buildHnsw(options: HnswBuildOptions): Promise<void> {
    return buildHnsw(this.ctx, options);
  }

  hnswSearch(query: HnswSearchQuery): Promise<TopK> {
    return hnswSearch(this.ctx, query);
  }

  hnswInserted(graph: HnswGraphBlock): number {
    return hnswInserted(this.ctx, graph);
  }

  hnswGraphBytes(graph: HnswGraphBlock): Uint8Array {
    return hnswGraphBytes(this.ctx, graph);
  }

  hnswLevel0(graph: HnswGraphBlock): ReturnType<typeof hnswLevel0> {
    return hnswLevel0(this.ctx, graph);
  }

  /**
   * Frees a block's regions. New calls using it throw kernel_region_released at once; calls
   * already running keep it until they settle.
   */
  release(block: Block): void {
    assertOpen(this.ctx);
    this.ctx.blocks.release(block);
  }

  vectorSearch(query: VectorSearchQuery): Promise<TopK> {
    return vectorSearch(this.ctx, query);
  }

  bm25(query: Bm25Query): Promise<Bm25Result> {
    return bm25Search(this.ctx, query);
  }

  rrf(query: RrfQuery): Promise<TopK> {
    return rrfFuse(this.ctx, query);
  }

  geoNearest(query: GeoQuery): Promise<GeoResult> {
    return geoNearest(this.ctx, query);
  }

  /**
   * Runs one raw task (a kernel name and numeric arguments) inline or on the pool. For callers that
   * lay out their own regions, and for measuring the pool's round trip with `noop`.
   */
  async runTask(task: KernelTask, mode: Exclude<ExecutionMode, 'auto'> = 'inline'): Promise<number> {
    assertOpen(this.ctx);
    if (mode === 'inline' || !this.pool) return runInline(this.ctx, task);
    const [value] = await runTasks(this.ctx, [task], true);
    return value!;
  }

  /** Destroys the pool. The memory is released with the runner object. */
  async close(): Promise<void> {
    if (this.isClosed) return;
    this.isClosed = true;
    await this.pool?.close();
  }
}

/** Synchronous: compiles the kernels and starts the pool, so the runtime can create it lazily. */
export function createKernelRunner(options?: KernelRunnerOptions): KernelRunner {
  return new KernelRunner(options);
}
