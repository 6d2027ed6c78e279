import { KernelInvalidInputError, KernelRegionReleasedError } from './errors.js';
import type { KernelMemory } from './kernel-memory.js';

/** A span of the shared memory. `id` tells a live region from a stale handle to a reused offset. */
export interface Region {
  readonly offset: number;
  readonly bytes: number;
  readonly id: number;
}

export interface RegionAllocatorStats {
  /** Bytes in live regions (after alignment). */
  liveBytes: number;
  liveRegions: number;
  /** Bytes in free holes below the top. */
  freeBytes: number;
  freeHoles: number;
  /** End of the laid-out area: freeing the last region lowers it, so it does not ratchet up. */
  top: number;
}

interface Hole {
  offset: number;
  bytes: number;
}

/** Cache-line alignment keeps two workers' scratch regions off each other's lines. */
const ALIGN = 64;

const alignUp = (n: number, to: number): number => Math.ceil(n / to) * to;

/**
 * Lays out the shared memory from the main thread: best-fit allocation over a sorted list of
 * holes, coalescing on free, and a top that shrinks when its neighbour is freed, so segments loaded
 * and dropped for hours reuse the same space instead of growing the memory. Only the main thread
 * allocates; workers receive offsets.
 */
export class RegionAllocator {
  private readonly memory: KernelMemory;
  private readonly base: number;
  private holes: Hole[] = [];
  private topOffset: number;
  private readonly live = new Map<number, Region>();
  private nextId = 1;

  /** `base` is the first byte the host owns (above the module's static data). */
  constructor(memory: KernelMemory, base: number) {
    this.memory = memory;
    this.base = alignUp(base, ALIGN);
    this.topOffset = this.base;
  }

  alloc(bytes: number): Region {
    if (!Number.isInteger(bytes) || bytes < 0) {
      throw new KernelInvalidInputError(`region size must be a non-negative integer, got ${bytes}`);
    }
    const size = Math.max(ALIGN, alignUp(bytes, ALIGN));
    let offset = this.takeHole(size);
    if (offset < 0) {
      this.memory.ensure(this.topOffset + size);
      offset = this.topOffset;
      this.topOffset += size;
    }
    const region: Region = Object.freeze({ offset, bytes: size, id: this.nextId++ });
    this.live.set(offset, region);
    return region;
  }

  free(region: Region): void {
    this.assertLive(region);
    this.live.delete(region.offset);
    this.insertHole(region.offset, region.bytes);
  }

  isLive(region: Region): boolean {
    return this.live.get(region.offset)?.id === region.id;
  }

  assertLive(region: Region): void {
    if (!this.isLive(region)) {
      throw new KernelRegionReleasedError(`region at ${region.offset} (${region.bytes} bytes) is not allocated`);
    }
  }

  stats(): RegionAllocatorStats {
    let liveBytes = 0;
    for (const r of this.live.values()) liveBytes += r.bytes;
    let freeBytes = 0;
    for (const h of this.holes) freeBytes += h.bytes;
    return { liveBytes, liveRegions: this.live.size, freeBytes, freeHoles: this.holes.length, top: this.topOffset };
  }

  private takeHole(size: number): number {
    let best = -1;
    for (let i = 0; i < this.holes.length; i++) {
      const h = this.holes[i]!;
      if (h.bytes >= size && (best < 0 || h.bytes < this.holes[best]!.bytes)) best = i;
    }
    if (best < 0) return -1;
    const hole = this.holes[best]!;
    const offset = hole.offset;
    if (hole.bytes === size) this.holes.splice(best, 1);
    else this.holes[best] = { offset: offset + size, bytes: hole.bytes - size };
    return offset;
  }

  private insertHole(offset: number, bytes: number): void {
    let i = 0;
    while (i < this.holes.length && this.holes[i]!.offset < offset) i++;
    let start = offset;
    let end = offset + bytes;
    const prev = this.holes[i - 1];
    if (prev && prev.offset + prev.bytes === start) {
      start = prev.offset;
      i--;
      this.holes.splice(i, 1);
    }
    const next = this.holes[i];
    if (next && next.offset === end) {
      end = next.offset + next.bytes;
      this.holes.splice(i, 1);
    }
    if (end === this.topOffset) {
      this.topOffset = start;
      return;
    }
    this.holes.splice(i, 0, { offset: start, bytes: end - start });
  }
}
