import type { Block } from './block.js';
import { assertOpen, type KernelContext } from './kernel-context.js';
import type { Region } from './region-allocator.js';
import { assertInteger, assertLength } from './validate.js';

/** A filter over ids [0, count): bit i of u32 word i >> 5 set when id i may be returned. */
export interface BitsetBlock extends Block {
  readonly kind: 'bitset';
  readonly count: number;
  readonly words: Region;
}

export const bitsetWords = (count: number): number => Math.ceil(count / 32);

/** Builds the word array for a set of allowed ids. */
export function bitsetFromIds(ids: Iterable<number>, count: number): Uint32Array {
  const words = new Uint32Array(bitsetWords(count));
  for (const id of ids) {
    assertInteger('bitset id', id, 0, count - 1);
    words[id >>> 5] = words[id >>> 5]! | (1 << (id & 31));
  }
  return words;
}

export function loadBitset(ctx: KernelContext, words: Uint32Array, count: number): BitsetBlock {
  assertOpen(ctx);
  assertInteger('bitset count', count, 0, 0xffffffff);
  assertLength('bitset words', words, bitsetWords(count));
  const region = ctx.allocator.alloc(words.length * 4);
  ctx.memory.u32.set(words, region.offset >>> 2);
  return Object.freeze({ kind: 'bitset', count, words: region, regions: [region] });
}
