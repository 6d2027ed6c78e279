import { KernelRegionReleasedError } from './errors.js';
import type { Region, RegionAllocator } from './region-allocator.js';

/** Segment data the host placed in shared memory. Blocks are plain objects; release frees them. */
export interface Block {
  readonly kind: string;
  /** Every region the block owns, freed together on release. */
  readonly regions: readonly Region[];
}

/**
 * Block lifetimes. A call pins the blocks it reads until it settles, so releasing a segment while
 * a pooled search still scans it (a merge dropping old segments under load) cannot hand its bytes
 * to a new allocation mid-scan: the release takes effect at once for new calls and frees the
 * regions when the last pinned call finishes. Keyed by region id, so copies of a block object
 * share its state.
 */
export class BlockLedger {
  private readonly allocator: RegionAllocator;
  private readonly pins = new Map<number, number>();
  private readonly pendingFree = new Map<number, Region>();

  constructor(allocator: RegionAllocator) {
    this.allocator = allocator;
  }

  assertUsable(block: Block, name: string): void {
    for (const r of block.regions) {
      if (!this.allocator.isLive(r) || this.pendingFree.has(r.id)) {
        throw new KernelRegionReleasedError(`${name} (${block.kind}) was released`);
      }
    }
  }

  /** Pins blocks for one call; returns the unpin function to run when the call settles. */
  pin(blocks: readonly (Block | undefined)[]): () => void {
    const regions = blocks.flatMap((b) => (b ? b.regions : []));
    for (const r of regions) this.pins.set(r.id, (this.pins.get(r.id) ?? 0) + 1);
    return () => {
      for (const r of regions) {
        const left = this.pins.get(r.id)! - 1;
        if (left > 0) {
          this.pins.set(r.id, left);
          continue;
        }
        this.pins.delete(r.id);
        const pending = this.pendingFree.get(r.id);
        if (pending) {
          this.pendingFree.delete(r.id);
          this.allocator.free(pending);
        }
      }
    };
  }

  release(block: Block): void {
    this.assertUsable(block, 'block');
    for (const r of block.regions) {
      if (this.pins.has(r.id)) this.pendingFree.set(r.id, r);
      else this.allocator.free(r);
    }
  }
}

/**
 * Allocates several regions for one block, all or none: if one allocation fails (out of memory)
 * the ones before it are freed, so a failed load leaks nothing.
 */
export function allocAll(allocator: RegionAllocator, sizes: readonly number[]): Region[] {
  const regions: Region[] = [];
  try {
    for (const bytes of sizes) regions.push(allocator.alloc(bytes));
    return regions;
  } catch (error) {
    for (const r of regions) allocator.free(r);
    throw error;
  }
}
