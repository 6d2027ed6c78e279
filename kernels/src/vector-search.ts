import type { BitsetBlock } from './bitset-block.js';
import { KernelInvalidInputError } from './errors.js';
import { assertOpen, runInline, runTasks, splitRange, usePool, withPinned, withScratch, type ExecutionMode, type KernelContext } from './kernel-context.js';
import { INT8_PARAM_BYTES } from './kernel-exports.js';
import type { KernelTask } from './kernel-task.js';
import { METRIC_CODES, METRICS, type Metric } from './metric.js';
import { emptyTopK, mergeTopK, readTopK, topKBytes, type TopK } from './top-k.js';
import type { VectorBlock } from './vector-block.js';
import { assertFiniteArray, assertInteger, assertK, assertKnownKeys, assertLength } from './validate.js';

export interface VectorSearchQuery {
  block: VectorBlock;
  vector: ArrayLike<number>;
  metric: Metric;
  k: number;
  /** Only ids whose bit is set are returned. */
  filter?: BitsetBlock;
  /** Scan the int8 codes, then rescore candidates in f32. @default false */
  quantized?: boolean;
  /** Int8 candidates rescored in f32. @default max(4 * k, 64) */
  candidates?: number;
  /** @default 'auto' */
  mode?: ExecutionMode;
}

const KEYS = ['block', 'vector', 'metric', 'k', 'filter', 'quantized', 'candidates', 'mode'];

export const defaultCandidates = (k: number): number => Math.max(4 * k, 64);

function validate(ctx: KernelContext, q: VectorSearchQuery): void {
  assertOpen(ctx);
  assertKnownKeys('vector search', q, KEYS);
  ctx.blocks.assertUsable(q.block, 'block');
  assertLength('vector', q.vector, q.block.dims);
  assertFiniteArray('vector', q.vector);
  assertK(q.k);
  if (!METRICS.includes(q.metric)) throw new KernelInvalidInputError(`unknown metric ${JSON.stringify(q.metric)}`);
  if (q.filter) {
    ctx.blocks.assertUsable(q.filter, 'filter');
    if (q.filter.count < q.block.count) {
      throw new KernelInvalidInputError(`filter covers ${q.filter.count} ids but the block has ${q.block.count}`);
    }
  }
  if (q.quantized && !q.block.int8) {
    throw new KernelInvalidInputError('quantized search needs a block loaded with quantize: true');
  }
  if (q.candidates !== undefined) assertInteger('candidates', q.candidates, q.k);
}

/**
 * Top-k rows of a block for a query. Pooled runs split the block into one range per thread; scores
 * do not depend on the split, so pooled and inline answers are identical. Quantized searches merge
 * the ranges' int8 candidates first and rescore the merged set, which keeps that true for int8.
 */
export async function vectorSearch(ctx: KernelContext, q: VectorSearchQuery): Promise<TopK> {
  validate(ctx, q);
  const { block, k } = q;
  const { count, dims } = block;
  if (count === 0) return emptyTopK();
  const metric = METRIC_CODES[q.metric];
  const filterPtr = q.filter ? q.filter.words.offset : 0;
  const quantized = q.quantized === true;
  const bytesPerRow = quantized ? dims : dims * 4;
  const pooled = usePool(ctx, q.mode ?? 'auto', count * bytesPerRow);
  const ranges = pooled ? splitRange(count, ctx.pool!.threads) : [[0, count] as [number, number]];
  const keep = Math.min(count, quantized ? Math.max(q.candidates ?? defaultCandidates(k), k) : k);

  // Query scratch: the f32 vector, then its norm, then for int8 its params, its codes and the codes
  // widened to i16 (16-byte aligned), which is what the scan multiplies rows with.
  const paramsOffset = dims * 4 + 16;
  const wideOffset = paramsOffset + INT8_PARAM_BYTES + align16(dims);
  const queryBytes = quantized ? wideOffset + dims * 2 : paramsOffset;
  return withPinned(ctx, [block, q.filter], () =>
    withScratch(ctx, [queryBytes, ...ranges.map(() => topKBytes(keep))], async ([query, ...heaps]) => {
      const qPtr = query!.offset;
      const normPtr = qPtr + dims * 4;
      ctx.memory.f32.set(q.vector, qPtr >>> 2);
      ctx.kernels.normsF32(qPtr, dims, 0, 1, normPtr);
      const queryNorm = ctx.memory.f32[normPtr >>> 2]!;

      let tasks: KernelTask[];
      if (!quantized) {
        tasks = ranges.map(([start, end], i) => ({
          kernel: 'scanF32',
          args: [block.vectors.offset, block.norms.offset, dims, start, end, qPtr, queryNorm, metric, filterPtr, heaps[i]!.offset, keep],
        }));
      } else {
        const int8 = block.int8!;
        const qParams = qPtr + paramsOffset;
        const qCodes = qParams + INT8_PARAM_BYTES;
        const qWide = qPtr + wideOffset;
        ctx.kernels.quantizeInt8(qPtr, normPtr, dims, 0, 1, qCodes, qParams);
        ctx.kernels.widenInt8(qCodes, dims, qWide);
        tasks = ranges.map(([start, end], i) => ({
          kernel: 'scanInt8',
          args: [int8.codes.offset, int8.params.offset, dims, start, end, qWide, qParams, metric, filterPtr, heaps[i]!.offset, keep],
        }));
      }
      const counts = await runTasks(ctx, tasks, pooled);
      const merged = mergeTopK(
        counts.map((n, i) => readTopK(ctx.memory, heaps[i]!.offset, keep, n)),
        keep,
      );
      if (!quantized) return sliceTopK(merged, k);
      return rescore(ctx, q, merged.ids, qPtr, queryNorm, metric);
    }),
  );
}

const align16 = (n: number): number => (n + 15) & ~15;

const sliceTopK = (t: TopK, k: number): TopK => (t.ids.length <= k ? t : { ids: t.ids.slice(0, k), scores: t.scores.slice(0, k) });

/** Exact f32 scores for the int8 candidates; a few hundred rows, so always inline. */
function rescore(ctx: KernelContext, q: VectorSearchQuery, candidates: Uint32Array, qPtr: number, queryNorm: number, metric: number): Promise<TopK> {
  const keep = Math.min(q.k, candidates.length);
  if (keep === 0) return Promise.resolve(emptyTopK());
  return withScratch(ctx, [candidates.length * 4, topKBytes(keep)], ([cand, heap]) => {
    ctx.memory.u32.set(candidates, cand!.offset >>> 2);
    const n = runInline(ctx, {
      kernel: 'rescoreF32',
      args: [q.block.vectors.offset, q.block.norms.offset, q.block.dims, qPtr, queryNorm, metric, cand!.offset, candidates.length, heap!.offset, keep],
    });
    return readTopK(ctx.memory, heap!.offset, keep, n);
  });
}
