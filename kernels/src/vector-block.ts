import { allocAll, type Block } from './block.js';
import { assertOpen, type KernelContext } from './kernel-context.js';
import { KernelInvalidInputError } from './errors.js';
import { INT8_PARAM_BYTES } from './kernel-exports.js';
import type { Region } from './region-allocator.js';
import { assertFiniteArray, assertInteger, assertKnownKeys } from './validate.js';

/**
 * Int8 codes of a block: dims bytes per row, and per row 16 bytes of parameters
 * (f32 scale, f32 offset, i32 code sum, f32 norm) so x[i] ~= scale * code[i] + offset.
 */
export interface Int8Codes {
  readonly codes: Region;
  readonly params: Region;
}

/** `count` rows of `dims` f32 values, row-major, with their L2 norms (computed at load). */
export interface VectorBlock extends Block {
  readonly kind: 'vectors';
  readonly count: number;
  readonly dims: number;
  readonly vectors: Region;
  readonly norms: Region;
  /** Present when loaded with `quantize: true`; int8 searches rescore from `vectors`. */
  readonly int8: Int8Codes | null;
}

export interface LoadVectorsOptions {
  dims: number;
  /** Also build int8 codes for `quantized` searches. @default false */
  quantize?: boolean;
}

/** Copies vectors into shared memory, computes norms and optionally the int8 codes, all inline. */
export function loadVectors(ctx: KernelContext, data: ArrayLike<number>, options: LoadVectorsOptions): VectorBlock {
  assertOpen(ctx);
  assertKnownKeys('loadVectors options', options, ['dims', 'quantize']);
  assertInteger('dims', options.dims, 1, 65536);
  const { dims } = options;
  if (data.length % dims !== 0) {
    throw new KernelInvalidInputError(`vector data length ${data.length} is not a multiple of dims ${dims}`);
  }
  assertFiniteArray('vectors', data);
  const count = data.length / dims;
  const sizes = [count * dims * 4, count * 4, ...(options.quantize ? [count * dims, count * INT8_PARAM_BYTES] : [])];
  const [vectors, norms, codes, params] = allocAll(ctx.allocator, sizes) as [Region, Region, Region?, Region?];
  const int8: Int8Codes | null = codes && params ? { codes, params } : null;
  // Views are taken after every allocation: an allocation may have grown the memory.
  ctx.memory.f32.set(data, vectors.offset >>> 2);
  ctx.kernels.normsF32(vectors.offset, dims, 0, count, norms.offset);
  if (int8) {
    ctx.kernels.quantizeInt8(vectors.offset, norms.offset, dims, 0, count, int8.codes.offset, int8.params.offset);
  }
  const regions = [vectors, norms, ...(int8 ? [int8.codes, int8.params] : [])];
  return Object.freeze({ kind: 'vectors', count, dims, vectors, norms, int8, regions });
}
