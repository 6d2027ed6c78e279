import type { BitsetBlock } from './bitset-block.js';
import type { Block } from './block.js';
import { KernelInvalidInputError } from './errors.js';
import { assertOpen, runInline, runTasks, usePool, withPinned, withScratch, type ExecutionMode, type KernelContext } from './kernel-context.js';
import { INT8_PARAM_BYTES } from './kernel-exports.js';
import { METRIC_CODES, METRICS, type Metric } from './metric.js';
import { mulberry32 } from './prng.js';
import type { Region } from './region-allocator.js';
import { emptyTopK, readTopK, topKBytes, type TopK } from './top-k.js';
import type { VectorBlock } from './vector-block.js';
import { assertFiniteArray, assertInteger, assertK, assertKnownKeys, assertLength } from './validate.js';

// The layout kernels/assembly/hnsw.ts reads. Header words:
const MAGIC = 0x57534e48; // "HNSW"
const VERSION = 1;
const W = {
  magic: 0,
  version: 1,
  count: 2,
  dims: 3,
  m: 4,
  m0: 5,
  efConstruction: 6,
  entry: 7,
  topLevel: 8,
  metric: 9,
  inserted: 10,
  upperLists: 11,
  levels: 12,
  upperStart: 13,
  level0: 14,
  upper: 15,
  bytes: 16,
} as const;
const HEADER_BYTES = 128;
/** A node's level is capped here; at M = 16, 2^-50 of nodes would reach it. */
const MAX_LEVEL = 15;

export interface HnswOptions {
  /** Links per node on the upper levels; level 0 keeps 2 * m. @default 16 */
  m?: number;
  /** Beam width while inserting. @default 200 */
  efConstruction?: number;
  metric: Metric;
  /** Seeds the level draw, so the same vectors and seed build the same graph. @default 0 */
  seed?: number;
  /**
   * A finished graph over the block's first `from.count` rows (the same vectors, in the same
   * order), with the same m, efConstruction and metric: its levels and links are copied and the
   * build goes on from the next row. How a merge reuses its largest segment's graph. */
  from?: HnswGraphBlock;
}

/** A navigable small-world graph over one vector block's rows (ids are row numbers). */
export interface HnswGraphBlock extends Block {
  readonly kind: 'hnsw';
  readonly count: number;
  readonly dims: number;
  readonly m: number;
  readonly efConstruction: number;
  readonly metric: Metric;
  readonly graph: Region;
  readonly bytes: number;
}

export interface HnswBuildOptions {
  graph: HnswGraphBlock;
  vectors: VectorBlock;
  /** Nodes per kernel call; progress is reported and `signal` checked between calls. @default 256 */
  chunk?: number;
  signal?: AbortSignal;
  onProgress?: (inserted: number, total: number) => void;
  /** `auto` builds on the pool when there is one. @default 'auto' */
  mode?: ExecutionMode;
  /**
   * Compare the block's int8 codes (loaded with `quantize: true`) instead of its f32 rows while
   * building: faster, the graph nearly as good. @default false
   */
  quantized?: boolean;
}

export interface HnswSearchQuery {
  graph: HnswGraphBlock;
  vectors: VectorBlock;
  vector: ArrayLike<number>;
  k: number;
  /** Beam width on level 0; max(ef, k) is used. @default max(k, 100) */
  ef?: number;
  filter?: BitsetBlock;
  /**
   * Walk the graph on the block's int8 codes (loaded with `quantize: true`), a quarter of the
   * bytes per row, and rescore the final beam in f32. @default false
   */
  quantized?: boolean;
}

/** The walk's scratch, sized by the kernel itself so the layout is written down once. */
const scratchBytes = (ctx: KernelContext, count: number, m0: number, ef: number): number => ctx.kernels.hnswScratchBytes(count, m0, ef);

function checkVectors(ctx: KernelContext, graph: HnswGraphBlock, vectors: VectorBlock): void {
  ctx.blocks.assertUsable(graph, 'graph');
  ctx.blocks.assertUsable(vectors, 'vectors');
  if (vectors.count !== graph.count || vectors.dims !== graph.dims) {
    throw new KernelInvalidInputError(`graph covers ${graph.count} x ${graph.dims} but the vector block is ${vectors.count} x ${vectors.dims}`);
  }
}

/**
 * Lays out an empty graph for a block's rows: draws every node's level (geometric, mL = 1 / ln m,
 * from a seeded generator), sizes the lists, zeroes them. `buildHnsw` then links the nodes.
 */
export function createHnswGraph(ctx: KernelContext, vectors: VectorBlock, options: HnswOptions): HnswGraphBlock {
  assertOpen(ctx);
  assertKnownKeys('hnsw options', options, ['m', 'efConstruction', 'metric', 'seed', 'from']);
  ctx.blocks.assertUsable(vectors, 'vectors');
  const m = options.m ?? 16;
  const efConstruction = options.efConstruction ?? 200;
  assertInteger('m', m, 2, 256);
  assertInteger('efConstruction', efConstruction, 1, 100_000);
  if (!METRICS.includes(options.metric)) throw new KernelInvalidInputError(`unknown metric ${JSON.stringify(options.metric)}`);
  const { count, dims } = vectors;
  const from = options.from;
  if (from) {
    ctx.blocks.assertUsable(from, 'from');
    const problem =
      from.m !== m || from.efConstruction !== efConstruction || from.metric !== options.metric
        ? 'was built with other parameters'
        : from.dims !== dims
          ? `has ${from.dims} dimensions, the block ${dims}`
          : from.count > count
            ? `covers ${from.count} rows, more than the block's ${count}`
            : hnswInserted(ctx, from) !== from.count
              ? 'is not finished'
              : null;
    if (problem) throw new KernelInvalidInputError(`the graph to start from ${problem}`);
  }
  const prefix = from?.count ?? 0;
  const fromBase = from ? from.graph.offset >>> 2 : 0;
  const m0 = 2 * m;
  const random = mulberry32(options.seed ?? 0);
  const ml = 1 / Math.log(m);
  const levels = new Uint32Array(count);
  const upperStart = new Uint32Array(count);
  if (from) {
    const u32 = ctx.memory.u32;
    levels.set(u32.subarray(fromBase + u32[fromBase + W.levels]! / 4, fromBase + u32[fromBase + W.levels]! / 4 + prefix));
  }
  let upperLists = 0;
  for (let i = 0; i < count; i++) {
    if (i >= prefix) levels[i] = Math.min(MAX_LEVEL, Math.floor(-Math.log(1 - random()) * ml));
    upperStart[i] = upperLists;
    upperLists += levels[i]!;
  }
  const levelsOff = HEADER_BYTES;
  const upperStartOff = levelsOff + count * 4;
  const level0Off = upperStartOff + count * 4;
  const upperOff = level0Off + count * (m0 + 1) * 4;
  const bytes = upperOff + upperLists * (m + 1) * 4;
  const graph = ctx.allocator.alloc(bytes);
  // Views after the allocation: it may have grown the memory.
  const u32 = ctx.memory.u32;
  const base = graph.offset >>> 2;
  u32.fill(0, base, base + bytes / 4);
  const header = [
    MAGIC,
    VERSION,
    count,
    dims,
    m,
    m0,
    efConstruction,
    0,
    0,
    METRIC_CODES[options.metric],
    0,
    upperLists,
    levelsOff,
    upperStartOff,
    level0Off,
    upperOff,
    bytes,
  ];
  u32.set(header, base);
  ctx.memory.i32[base + W.topLevel] = -1;
  u32.set(levels, base + levelsOff / 4);
  u32.set(upperStart, base + upperStartOff / 4);
  if (from && prefix > 0) {
    // The prefix's lists are laid out exactly as in `from` (same strides, same upper-list order),
    // and they only name rows below `prefix`: two block copies.
    const fromLevel0 = fromBase + u32[fromBase + W.level0]! / 4;
    u32.copyWithin(base + level0Off / 4, fromLevel0, fromLevel0 + prefix * (m0 + 1));
    const fromUpper = fromBase + u32[fromBase + W.upper]! / 4;
    u32.copyWithin(base + upperOff / 4, fromUpper, fromUpper + u32[fromBase + W.upperLists]! * (m + 1));
    u32[base + W.entry] = u32[fromBase + W.entry]!;
    ctx.memory.i32[base + W.topLevel] = ctx.memory.i32[fromBase + W.topLevel]!;
    u32[base + W.inserted] = prefix;
  }
  return Object.freeze({ kind: 'hnsw', count, dims, m, efConstruction, metric: options.metric, graph, bytes, regions: [graph] });
}

/** Nodes linked so far; equal to `count` once the build has finished. */
export function hnswInserted(ctx: KernelContext, graph: HnswGraphBlock): number {
  ctx.blocks.assertUsable(graph, 'graph');
  return ctx.memory.u32[(graph.graph.offset >>> 2) + W.inserted]!;
}

/** A copy of the graph's bytes, to persist; `loadHnswGraph` takes them back. */
export function hnswGraphBytes(ctx: KernelContext, graph: HnswGraphBlock): Uint8Array {
  ctx.blocks.assertUsable(graph, 'graph');
  return ctx.memory.u8.slice(graph.graph.offset, graph.graph.offset + graph.bytes);
}

/**
 * Places persisted graph bytes back in kernel memory for `vectors`, checking that they describe a
 * graph of this format over a block of that shape. Throws kernel_invalid_input otherwise, so a
 * caller can rebuild instead.
 */
export function loadHnswGraph(ctx: KernelContext, vectors: VectorBlock, bytes: Uint8Array): HnswGraphBlock {
  assertOpen(ctx);
  ctx.blocks.assertUsable(vectors, 'vectors');
  if (bytes.byteLength < HEADER_BYTES) throw new KernelInvalidInputError('graph bytes are shorter than a header');
  const aligned = bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
  const header = new Uint32Array(aligned.buffer, aligned.byteOffset, HEADER_BYTES / 4);
  const problem =
    header[W.magic] !== MAGIC
      ? 'not an HNSW graph'
      : header[W.version] !== VERSION
        ? `graph format ${header[W.version]} (this build reads ${VERSION})`
        : header[W.bytes] !== bytes.byteLength
          ? `graph declares ${header[W.bytes]} bytes but ${bytes.byteLength} were given`
          : header[W.count] !== vectors.count || header[W.dims] !== vectors.dims
            ? `graph covers ${header[W.count]} x ${header[W.dims]}, the block is ${vectors.count} x ${vectors.dims}`
            : header[W.inserted] !== header[W.count]
              ? 'graph build was not finished'
              : null;
  if (problem) throw new KernelInvalidInputError(problem);
  const metric = METRICS.find((name) => METRIC_CODES[name] === header[W.metric]);
  if (!metric) throw new KernelInvalidInputError(`graph has unknown metric code ${header[W.metric]}`);
  const graph = ctx.allocator.alloc(bytes.byteLength);
  ctx.memory.u8.set(bytes, graph.offset);
  return Object.freeze({
    kind: 'hnsw',
    count: vectors.count,
    dims: vectors.dims,
    m: header[W.m]!,
    efConstruction: header[W.efConstruction]!,
    metric,
    graph,
    bytes: bytes.byteLength,
    regions: [graph],
  });
}

/**
 * Links every node, in chunks of kernel calls (one at a time: inserts depend on each other), on
 * the pool when there is one so a long build leaves the event loop free. Resumes from the nodes
 * already inserted, so an aborted build can be continued.
 */
export async function buildHnsw(ctx: KernelContext, options: HnswBuildOptions): Promise<void> {
  assertOpen(ctx);
  assertKnownKeys('hnsw build options', options, ['graph', 'vectors', 'chunk', 'signal', 'onProgress', 'mode', 'quantized']);
  const { graph, vectors } = options;
  checkVectors(ctx, graph, vectors);
  const int8 = options.quantized ? vectors.int8 : null;
  if (options.quantized && !int8) throw new KernelInvalidInputError('a quantized build needs a block loaded with quantize: true');
  const chunk = options.chunk ?? 256;
  assertInteger('chunk', chunk, 1);
  const pooled = usePool(ctx, options.mode ?? 'auto', Number.MAX_SAFE_INTEGER);
  await withPinned(ctx, [graph, vectors], () =>
    withScratch(ctx, [scratchBytes(ctx, graph.count, 2 * graph.m, graph.efConstruction)], async ([scratch]) => {
      let done = hnswInserted(ctx, graph);
      while (done < graph.count) {
        options.signal?.throwIfAborted();
        const end = Math.min(graph.count, done + chunk);
        const task = {
          kernel: 'hnswInsert' as const,
          args: [
            graph.graph.offset,
            vectors.vectors.offset,
            vectors.norms.offset,
            done,
            end,
            scratch!.offset,
            int8 ? int8.codes.offset : 0,
            int8 ? int8.params.offset : 0,
          ],
        };
        [done] = await runTasks(ctx, [task], pooled);
        options.onProgress?.(done, graph.count);
        // Inline builds yield between chunks so requests keep being served.
        if (!pooled) await new Promise((resolve) => setImmediate(resolve));
      }
    }),
  );
}

/** Approximate top-k by the graph's metric, inline (a search touches a few thousand rows). */
export async function hnswSearch(ctx: KernelContext, q: HnswSearchQuery): Promise<TopK> {
  assertOpen(ctx);
  assertKnownKeys('hnsw search', q, ['graph', 'vectors', 'vector', 'k', 'ef', 'filter', 'quantized']);
  const { graph, vectors, k } = q;
  checkVectors(ctx, graph, vectors);
  assertLength('vector', q.vector, graph.dims);
  assertFiniteArray('vector', q.vector);
  assertK(k);
  const ef = Math.max(q.ef ?? Math.max(k, 100), k);
  assertInteger('ef', ef, 1, 100_000);
  if (q.filter) {
    ctx.blocks.assertUsable(q.filter, 'filter');
    if (q.filter.count < graph.count) throw new KernelInvalidInputError(`filter covers ${q.filter.count} ids but the graph has ${graph.count}`);
  }
  if (hnswInserted(ctx, graph) !== graph.count) throw new KernelInvalidInputError('the graph is still being built');
  const int8 = q.quantized ? vectors.int8 : null;
  if (q.quantized && !int8) throw new KernelInvalidInputError('quantized search needs a block loaded with quantize: true');
  if (graph.count === 0) return emptyTopK();
  const dims = graph.dims;
  // One scratch region carved in four (query, its int8 form, walk state, top-k), so a search
  // costs one allocation: at ~10k searches a second the allocator's bookkeeping shows.
  const align = (n: number): number => Math.ceil(n / 64) * 64;
  const queryBytes = align(dims * 4 + 16);
  const codeBytes = int8 ? align(INT8_PARAM_BYTES + dims) : 0;
  const walkBytes = align(scratchBytes(ctx, graph.count, 2 * graph.m, ef));
  return withPinned(ctx, [graph, vectors, q.filter], () =>
    withScratch(ctx, [queryBytes + codeBytes + walkBytes + topKBytes(k)], ([region]) => {
      const qPtr = region!.offset;
      const qParams = qPtr + queryBytes;
      const walkPtr = qParams + codeBytes;
      const heapPtr = walkPtr + walkBytes;
      const normPtr = qPtr + dims * 4;
      ctx.memory.f32.set(q.vector, qPtr >>> 2);
      ctx.kernels.normsF32(qPtr, dims, 0, 1, normPtr);
      const queryNorm = ctx.memory.f32[normPtr >>> 2]!;
      if (int8) ctx.kernels.quantizeInt8(qPtr, normPtr, dims, 0, 1, qParams + INT8_PARAM_BYTES, qParams);
      const n = runInline(ctx, {
        kernel: 'hnswSearch',
        args: [
          graph.graph.offset,
          vectors.vectors.offset,
          vectors.norms.offset,
          qPtr,
          queryNorm,
          ef,
          q.filter ? q.filter.words.offset : 0,
          walkPtr,
          heapPtr,
          k,
          int8 ? int8.codes.offset : 0,
          int8 ? int8.params.offset : 0,
          int8 ? qParams + INT8_PARAM_BYTES : 0,
          int8 ? qParams : 0,
        ],
      });
      return readTopK(ctx.memory, heapPtr, k, n);
    }),
  );
}

/** The graph's level-0 lists as arrays, for tests and diagnostics. */
export function hnswLevel0(ctx: KernelContext, graph: HnswGraphBlock): { entry: number; topLevel: number; levels: Uint32Array; neighbors: Uint32Array[] } {
  ctx.blocks.assertUsable(graph, 'graph');
  const base = graph.graph.offset >>> 2;
  const u32 = ctx.memory.u32;
  const m0 = u32[base + W.m0]!;
  const levels = u32.slice(base + u32[base + W.levels]! / 4, base + u32[base + W.levels]! / 4 + graph.count);
  const level0 = base + u32[base + W.level0]! / 4;
  const neighbors: Uint32Array[] = [];
  for (let i = 0; i < graph.count; i++) {
    const at = level0 + i * (m0 + 1);
    neighbors.push(u32.slice(at + 1, at + 1 + u32[at]!));
  }
  return { entry: u32[base + W.entry]!, topLevel: ctx.memory.i32[base + W.topLevel]!, levels, neighbors };
}
