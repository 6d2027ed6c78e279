import { allocAll, type Block } from './block.js';
import { assertOpen, type KernelContext } from './kernel-context.js';
import { KernelInvalidInputError } from './errors.js';
import type { Region } from './region-allocator.js';
import { assertLength } from './validate.js';

/** One term's postings in one field of a segment: document ordinals and term frequencies. */
export interface PostingsBlock extends Block {
  readonly kind: 'postings';
  readonly count: number;
  /** Largest ordinal, checked against the segment's docCount at query time (-1 when empty). */
  readonly maxDoc: number;
  readonly docs: Region;
  readonly tfs: Region;
}

/** A field's length (in tokens) for every document ordinal of a segment. */
export interface DocLengthsBlock extends Block {
  readonly kind: 'docLengths';
  readonly count: number;
  readonly lengths: Region;
}

export function loadPostings(ctx: KernelContext, docs: Uint32Array, tfs: Uint32Array): PostingsBlock {
  assertOpen(ctx);
  assertLength('tfs', tfs, docs.length);
  let maxDoc = -1;
  for (let i = 0; i < docs.length; i++) {
    if (tfs[i]! < 1) throw new KernelInvalidInputError(`tfs[${i}] must be >= 1, got ${tfs[i]}`);
    if (docs[i]! > maxDoc) maxDoc = docs[i]!;
  }
  const [docsRegion, tfsRegion] = allocAll(ctx.allocator, [docs.length * 4, tfs.length * 4]) as [Region, Region];
  ctx.memory.u32.set(docs, docsRegion.offset >>> 2);
  ctx.memory.u32.set(tfs, tfsRegion.offset >>> 2);
  return Object.freeze({
    kind: 'postings',
    count: docs.length,
    maxDoc,
    docs: docsRegion,
    tfs: tfsRegion,
    regions: [docsRegion, tfsRegion],
  });
}

export function loadDocLengths(ctx: KernelContext, lengths: Uint32Array): DocLengthsBlock {
  assertOpen(ctx);
  const region = ctx.allocator.alloc(lengths.length * 4);
  ctx.memory.u32.set(lengths, region.offset >>> 2);
  return Object.freeze({ kind: 'docLengths', count: lengths.length, lengths: region, regions: [region] });
}

/**
 * A view of `count` postings starting at `start` inside a larger postings block: a segment loads
 * all of a field's postings as one block and addresses each term as a view, instead of holding a
 * region per term. A view shares its parent's regions (so pinning and liveness follow the parent):
 * release the parent, never a view.
 */
export function postingsView(ctx: KernelContext, parent: PostingsBlock, start: number, count: number): PostingsBlock {
  assertOpen(ctx);
  if (!Number.isInteger(start) || !Number.isInteger(count) || start < 0 || count < 0 || start + count > parent.count) {
    throw new KernelInvalidInputError(`postings view [${start}, ${start + count}) is outside the block's ${parent.count} postings`);
  }
  const docs = ctx.memory.u32;
  let maxDoc = -1;
  const base = parent.docs.offset >>> 2;
  for (let i = start; i < start + count; i++) if (docs[base + i]! > maxDoc) maxDoc = docs[base + i]!;
  return Object.freeze({
    kind: 'postings',
    count,
    maxDoc,
    docs: { offset: parent.docs.offset + start * 4, bytes: count * 4, id: parent.docs.id },
    tfs: { offset: parent.tfs.offset + start * 4, bytes: count * 4, id: parent.tfs.id },
    regions: parent.regions,
  });
}
