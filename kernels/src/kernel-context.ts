import { allocAll, type Block, type BlockLedger } from './block.js';
import { KernelRunnerClosedError, kernelErrorFromWire } from './errors.js';
import type { KernelExports } from './kernel-exports.js';
import type { KernelMemory } from './kernel-memory.js';
import type { KernelPool } from './kernel-pool.js';
import { runKernelTask, type KernelTask } from './kernel-task.js';
import type { Region, RegionAllocator } from './region-allocator.js';

/**
 * Where a call runs. `auto` runs inline when the bytes it touches are at most the runner's
 * `inlineMaxBytes` (measured, see bench/README.md) and on the pool otherwise.
 */
export type ExecutionMode = 'auto' | 'inline' | 'pool';

/** What the kernel wrappers share: the memory, its allocator, the main-thread instance, the pool. */
export interface KernelContext {
  readonly memory: KernelMemory;
  readonly allocator: RegionAllocator;
  readonly blocks: BlockLedger;
  readonly kernels: KernelExports;
  readonly pool: KernelPool | null;
  readonly inlineMaxBytes: number;
  readonly closed: boolean;
}

export function assertOpen(ctx: KernelContext): void {
  if (ctx.closed) throw new KernelRunnerClosedError();
}

export function usePool(ctx: KernelContext, mode: ExecutionMode, workBytes: number): boolean {
  if (!ctx.pool || mode === 'inline') return false;
  return mode === 'pool' || workBytes > ctx.inlineMaxBytes;
}

/** Runs a task on the main thread's instance, throwing the KernelError it reports. */
export function runInline(ctx: KernelContext, task: KernelTask): number {
  const result = runKernelTask(ctx.kernels, task);
  if ('error' in result) throw kernelErrorFromWire(result.error);
  return result.value;
}

/** Runs tasks on the pool, or inline one after another; results in task order. */
export async function runTasks(ctx: KernelContext, tasks: readonly KernelTask[], pooled: boolean): Promise<number[]> {
  if (pooled && ctx.pool) {
    const pool = ctx.pool;
    return Promise.all(tasks.map((task) => pool.run(task)));
  }
  return tasks.map((task) => runInline(ctx, task));
}

/**
 * Allocates scratch regions for one call and frees them however the call ends. Each task in
 * flight owns its scratch, so concurrent calls and workers never share accumulators or heaps.
 */
export async function withScratch<T>(ctx: KernelContext, sizes: readonly number[], body: (regions: Region[]) => Promise<T> | T): Promise<T> {
  const regions = allocAll(ctx.allocator, sizes);
  try {
    return await body(regions);
  } finally {
    for (const r of regions) ctx.allocator.free(r);
  }
}

/** Keeps the blocks a call reads allocated until it settles (see BlockLedger). */
export async function withPinned<T>(ctx: KernelContext, blocks: readonly (Block | undefined)[], body: () => Promise<T>): Promise<T> {
  const unpin = ctx.blocks.pin(blocks);
  try {
    return await body();
  } finally {
    unpin();
  }
}

/** Splits [0, count) into at most `parts` contiguous, nearly equal, non-empty ranges. */
export function splitRange(count: number, parts: number): Array<[number, number]> {
  const n = Math.max(1, Math.min(parts, count));
  const ranges: Array<[number, number]> = [];
  for (let i = 0; i < n; i++) {
    ranges.push([Math.floor((count * i) / n), Math.floor((count * (i + 1)) / n)]);
  }
  return ranges;
}
