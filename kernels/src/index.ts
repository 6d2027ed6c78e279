// The package's `./kernels` entry.
export { createKernelRunner, KernelRunner, type KernelRunnerOptions } from './kernel-runner.js';
export type { ExecutionMode } from './kernel-context.js';
export type { Metric } from './metric.js';
export { mergeTopK, mergeTopK64, type TopK, type TopK64 } from './top-k.js';
export type { Block } from './block.js';
export type { VectorBlock, Int8Codes, LoadVectorsOptions } from './vector-block.js';
export type { PostingsBlock, DocLengthsBlock } from './text-blocks.js';
export { bitsetFromIds, type BitsetBlock } from './bitset-block.js';
export type { GeoBlock } from './geo-block.js';
export type { HnswGraphBlock, HnswOptions, HnswBuildOptions, HnswSearchQuery } from './hnsw-graph.js';
export { defaultCandidates, type VectorSearchQuery } from './vector-search.js';
export type { Bm25Query, Bm25Result, Bm25Segment, Bm25Term } from './bm25-search.js';
export type { RrfQuery } from './rrf-fuse.js';
export { mulberry32 } from './prng.js';
export { EARTH_RADIUS_M, type GeoQuery, type GeoResult, type GeoBox } from './geo-nearest.js';
export type { Region, RegionAllocator, RegionAllocatorStats } from './region-allocator.js';
export type { KernelMemory } from './kernel-memory.js';
export type { KernelExports, KernelName } from './kernel-exports.js';
export type { KernelTask } from './kernel-task.js';
export type { KernelBuild } from './load-kernel-module.js';
export { DEFAULT_INLINE_MAX_BYTES } from './inline-threshold.js';
export {
  KernelError,
  KernelInvalidInputError,
  KernelRegionReleasedError,
  KernelOutOfMemoryError,
  KernelAbortError,
  KernelTrapError,
  KernelBuildMissingError,
  KernelRunnerClosedError,
  KernelWorkerError,
  kernelErrorCodes,
} from './errors.js';
export * as reference from './reference/index.js';
