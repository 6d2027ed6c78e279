import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKernelRunner, KernelAbortError, KernelRunnerClosedError, KernelTrapError, reference, type KernelRunner } from '../../kernels/src/index.js';
import { integerVectors, prng } from './support/prng.js';
import { plain } from './support/top-k-assertions.js';

describe('kernel pool', () => {
  let runner: KernelRunner;
  beforeAll(() => {
    runner = createKernelRunner({ threads: 2, initialMemoryMb: 1 });
  });
  afterAll(() => runner.close());

  it('rejects a task that aborts inside a worker with kernel_abort, then keeps serving', async () => {
    const dims = 16;
    const data = integerVectors(prng(1), 100, dims);
    const block = runner.loadVectors(data, { dims });
    const heap = runner.allocator.alloc(64);
    // k = 0 skips the host's validation; the kernel's own guard aborts.
    const bad = { kernel: 'scanF32' as const, args: [block.vectors.offset, block.norms.offset, dims, 0, 100, block.vectors.offset, 1, 0, 0, heap.offset, 0] };
    const failure = runner.runTask(bad, 'pool');
    await expect(failure).rejects.toBeInstanceOf(KernelAbortError);
    await expect(failure).rejects.toMatchObject({ code: 'kernel_abort', message: expect.stringContaining('top-k needs k >= 1') });
    await expect(runner.runTask(bad, 'inline')).rejects.toMatchObject({ code: 'kernel_abort' });
    const query = data.subarray(0, dims);
    const expected = plain(reference.vectorSearch({ vectors: data, dims, query, metric: 'dot', k: 5 }));
    expect(plain(await runner.vectorSearch({ block, vector: query, metric: 'dot', k: 5, mode: 'pool' }))).toEqual(expected);
    runner.allocator.free(heap);
    runner.release(block);
  });

  it('rejects an out-of-bounds task with kernel_trap and an unknown kernel with kernel_invalid_input', async () => {
    const past = runner.memory.byteLength + 65536;
    const trap = runner.runTask({ kernel: 'streamRead', args: [past, 4096] }, 'pool');
    await expect(trap).rejects.toBeInstanceOf(KernelTrapError);
    await expect(trap).rejects.toMatchObject({ code: 'kernel_trap' });
    await expect(runner.runTask({ kernel: 'heapBase' as never, args: [] }, 'pool')).rejects.toMatchObject({ code: 'kernel_invalid_input' });
    expect(await runner.runTask({ kernel: 'noop', args: [] }, 'pool')).toBe(0);
  });

  it('completes 200 concurrent pooled searches, each identical to its inline answer, without leaking scratch', async () => {
    const rand = prng(200);
    const dims = 64;
    const data = integerVectors(rand, 3000, dims);
    const block = runner.loadVectors(data, { dims, quantize: true });
    const before = runner.allocator.stats();
    const queries = Array.from({ length: 200 }, () => integerVectors(rand, 1, dims));
    const pooled = await Promise.all(
      queries.map((vector, i) => runner.vectorSearch({ block, vector, metric: 'euclidean', k: 10, quantized: i % 2 === 1, mode: 'pool' })),
    );
    for (const [i, vector] of queries.entries()) {
      const inline = await runner.vectorSearch({ block, vector, metric: 'euclidean', k: 10, quantized: i % 2 === 1, mode: 'inline' });
      expect(plain(pooled[i]!)).toEqual(plain(inline));
    }
    expect(runner.allocator.stats().liveRegions).toBe(before.liveRegions);
    runner.release(block);
  });

  it('lets a pooled search finish on a block released mid-flight, then frees it', async () => {
    const rand = prng(314);
    const dims = 128;
    const data = integerVectors(rand, 60_000, dims);
    const block = runner.loadVectors(data, { dims });
    const liveBefore = runner.allocator.stats().liveRegions;
    const query = integerVectors(rand, 1, dims);
    const running = runner.vectorSearch({ block, vector: query, metric: 'dot', k: 5, mode: 'pool' });
    runner.release(block);
    // New calls see the release at once; the regions stay allocated for the running one.
    await expect(runner.vectorSearch({ block, vector: query, metric: 'dot', k: 5 })).rejects.toMatchObject({ code: 'kernel_region_released' });
    expect(runner.allocator.stats().liveRegions).toBeGreaterThanOrEqual(liveBefore);
    // Reusing the memory now must not disturb the running scan.
    const filler = runner.loadVectors(new Float32Array(1000 * dims).fill(1000), { dims });
    expect(plain(await running)).toEqual(plain(reference.vectorSearch({ vectors: data, dims, query, metric: 'dot', k: 5 })));
    expect(runner.allocator.stats().liveRegions).toBe(liveBefore - block.regions.length + filler.regions.length);
    runner.release(filler);
  });

  it('keeps answers right when the memory grows while pooled tasks are in flight', async () => {
    const rand = prng(42);
    const dims = 128;
    const first = integerVectors(rand, 4000, dims);
    const a = runner.loadVectors(first, { dims });
    const queries = Array.from({ length: 40 }, () => integerVectors(rand, 1, dims));
    const inFlight = queries.map((vector) => runner.vectorSearch({ block: a, vector, metric: 'dot', k: 7, mode: 'pool' }));
    const sizeBefore = runner.memory.byteLength;
    // 40 MB more than the memory holds: it must grow while the searches above run on the workers.
    const second = integerVectors(rand, 80_000, dims);
    const b = runner.loadVectors(second, { dims });
    expect(runner.memory.byteLength).toBeGreaterThan(sizeBefore);
    const answers = await Promise.all(inFlight);
    answers.forEach((answer, i) => {
      expect(plain(answer)).toEqual(plain(reference.vectorSearch({ vectors: first, dims, query: queries[i]!, metric: 'dot', k: 7 })));
    });
    // Block b lies in the grown part: workers and the main thread must both see it.
    const query = queries[0]!;
    const expected = plain(reference.vectorSearch({ vectors: second, dims, query, metric: 'cosine', k: 9 }));
    expect(plain(await runner.vectorSearch({ block: b, vector: query, metric: 'cosine', k: 9, mode: 'pool' }))).toEqual(expected);
    expect(plain(await runner.vectorSearch({ block: b, vector: query, metric: 'cosine', k: 9, mode: 'inline' }))).toEqual(expected);
    runner.release(a);
    runner.release(b);
  });
});

describe('kernel runner lifecycle and options', () => {
  it('rejects calls after close with kernel_runner_closed, and close is idempotent', async () => {
    const runner = createKernelRunner({ threads: 1 });
    const block = runner.loadVectors([1, 2, 3, 4], { dims: 2 });
    await runner.close();
    await runner.close();
    expect(runner.closed).toBe(true);
    await expect(runner.vectorSearch({ block, vector: [1, 1], metric: 'dot', k: 1 })).rejects.toBeInstanceOf(KernelRunnerClosedError);
    await expect(runner.runTask({ kernel: 'noop', args: [] }, 'pool')).rejects.toMatchObject({ code: 'kernel_runner_closed' });
  });

  it('runs everything inline with threads: 0, even when the pool is asked for', async () => {
    const runner = createKernelRunner({ threads: 0 });
    const block = runner.loadVectors([1, 0, 0, 1, 1, 1], { dims: 2 });
    expect(plain(await runner.vectorSearch({ block, vector: [1, 0], metric: 'dot', k: 3, mode: 'pool' }))).toEqual({ ids: [0, 2, 1], scores: [1, 1, 0] });
    await runner.close();
  });

  it('validates options and reports kernel_out_of_memory past maximumMemoryMb', async () => {
    expect(() => createKernelRunner({ threads: -1 })).toThrow(expect.objectContaining({ code: 'kernel_invalid_input' }));
    expect(() => createKernelRunner({ maximumMemoryMb: 5000 })).toThrow(expect.objectContaining({ code: 'kernel_invalid_input' }));
    expect(() => createKernelRunner({ initialMemoryMb: 8, maximumMemoryMb: 4 })).toThrow(expect.objectContaining({ code: 'kernel_invalid_input' }));
    expect(() => createKernelRunner({ thread: 2 } as never)).toThrow(expect.objectContaining({ code: 'kernel_invalid_input' }));
    const runner = createKernelRunner({ threads: 0, initialMemoryMb: 1, maximumMemoryMb: 2 });
    // 1.75 MB of f32 fits; its int8 codes do not, so the load fails part way.
    const data = new Float32Array(1792 * 256);
    expect(() => runner.loadVectors(data, { dims: 256, quantize: true })).toThrow(
      expect.objectContaining({ code: 'kernel_out_of_memory', name: 'KernelOutOfMemoryError' }),
    );
    // The failed load freed what it had allocated: the same f32 block alone still fits.
    expect(runner.loadVectors(data, { dims: 256 }).count).toBe(1792);
    await runner.close();
  });

  it('throws kernel_region_released for a released block and a double release', async () => {
    const runner = createKernelRunner({ threads: 0 });
    const block = runner.loadVectors([1, 2], { dims: 2 });
    runner.release(block);
    expect(() => runner.release(block)).toThrow(expect.objectContaining({ code: 'kernel_region_released' }));
    await expect(runner.vectorSearch({ block, vector: [1, 1], metric: 'dot', k: 1 })).rejects.toMatchObject({ code: 'kernel_region_released' });
    await runner.close();
  });
});
