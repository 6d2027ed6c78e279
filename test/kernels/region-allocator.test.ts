import { describe, expect, it } from 'vitest';
import { KernelMemory, PAGE_BYTES } from '../../kernels/src/kernel-memory.js';
import { RegionAllocator, type Region } from '../../kernels/src/region-allocator.js';
import { prng, randInt } from './support/prng.js';

const BASE = 1024;

function setup(pages = 1, maximum = 1024): { memory: KernelMemory; allocator: RegionAllocator } {
  const memory = new KernelMemory(pages, maximum);
  return { memory, allocator: new RegionAllocator(memory, BASE) };
}

const overlaps = (a: Region, b: Region): boolean => a.offset < b.offset + b.bytes && b.offset < a.offset + a.bytes;

describe('region allocator', () => {
  it('hands out 64-byte aligned, disjoint regions above the module data, growing the memory as needed', () => {
    const { memory, allocator } = setup();
    const regions = [10, 64, 65, 100_000, 0, 3].map((n) => allocator.alloc(n));
    for (const [i, r] of regions.entries()) {
      expect(r.offset % 64).toBe(0);
      expect(r.offset).toBeGreaterThanOrEqual(BASE);
      expect(r.bytes).toBeGreaterThanOrEqual(64);
      for (const other of regions.slice(i + 1)) expect(overlaps(r, other)).toBe(false);
    }
    expect(memory.byteLength).toBeGreaterThanOrEqual(regions.at(-1)!.offset + 64);
    expect(memory.byteLength % PAGE_BYTES).toBe(0);
  });

  it('reuses a freed region for an allocation that fits and coalesces neighbours', () => {
    const { allocator } = setup();
    const [a, b, c, d] = [1000, 1000, 1000, 1000].map((n) => allocator.alloc(n)) as [Region, Region, Region, Region];
    allocator.free(b);
    expect(allocator.alloc(500).offset).toBe(b.offset);
    allocator.free(a);
    allocator.free(c);
    // a, the rest of b and c coalesce around the 512-byte region; d still pins the top.
    const stats = allocator.stats();
    expect(stats.liveRegions).toBe(2);
    expect(stats.freeHoles).toBe(2);
    const big = allocator.alloc(c.bytes + b.bytes - 512);
    expect(big.offset).toBe(b.offset + 512);
    expect(allocator.stats().top).toBe(d.offset + d.bytes);
  });

  it('lowers the top when the last region is freed, so the space is fully reusable', () => {
    const { allocator } = setup();
    const start = allocator.stats().top;
    const regions = Array.from({ length: 10 }, (_, i) => allocator.alloc(1000 * (i + 1)));
    for (const r of regions.reverse()) allocator.free(r);
    expect(allocator.stats()).toEqual({ liveBytes: 0, liveRegions: 0, freeBytes: 0, freeHoles: 0, top: start });
  });

  it('does not grow over hours of segments loaded and dropped in random order', () => {
    const { memory, allocator } = setup();
    const rand = prng(2024);
    const live: Region[] = [];
    let sizeAfterWarmup = 0;
    for (let step = 0; step < 20_000; step++) {
      if (live.length < 50 && (live.length === 0 || rand() < 0.5)) {
        live.push(allocator.alloc(randInt(rand, 1, 256 * 1024)));
      } else {
        allocator.free(live.splice(randInt(rand, 0, live.length - 1), 1)[0]!);
      }
      if (step === 2000) sizeAfterWarmup = memory.byteLength;
    }
    // 50 live regions of at most 256 KB need at most 12.5 MB; fragmentation may cost some slack,
    // but the memory stops growing once the working set has been seen.
    expect(memory.byteLength).toBeLessThanOrEqual(Math.max(sizeAfterWarmup, 50 * 256 * 1024) * 2);
    for (const r of live) allocator.free(r);
    expect(allocator.stats().liveBytes).toBe(0);
    expect(allocator.stats().freeHoles).toBe(0);
  });

  it('rejects a double free and a stale handle to a reused offset with kernel_region_released', () => {
    const { allocator } = setup();
    const a = allocator.alloc(100);
    allocator.free(a);
    expect(() => allocator.free(a)).toThrow(expect.objectContaining({ code: 'kernel_region_released' }));
    const b = allocator.alloc(100);
    expect(b.offset).toBe(a.offset);
    expect(allocator.isLive(a)).toBe(false);
    expect(allocator.isLive(b)).toBe(true);
    expect(() => allocator.alloc(-1)).toThrow(expect.objectContaining({ code: 'kernel_invalid_input' }));
  });

  it('throws kernel_out_of_memory past the maximum and re-creates views after growth', () => {
    const { memory, allocator } = setup(1, 4);
    const first = allocator.alloc(1000);
    memory.f32[first.offset >>> 2] = 1.5;
    const viewBefore = memory.f32;
    allocator.alloc(3 * PAGE_BYTES);
    expect(memory.f32).not.toBe(viewBefore);
    expect(memory.f32.length).toBe(memory.byteLength / 4);
    expect(memory.f32[first.offset >>> 2]).toBe(1.5);
    expect(() => allocator.alloc(PAGE_BYTES)).toThrow(expect.objectContaining({ code: 'kernel_out_of_memory' }));
  });
});
