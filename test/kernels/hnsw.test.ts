import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKernelRunner, KernelInvalidInputError, type HnswGraphBlock, type KernelRunner, type Metric, type VectorBlock } from '../../kernels/src/index.js';
import { gaussianVectors, prng } from './support/prng.js';
import { MNIST_DIR, mnistAvailable, readVecs } from './support/texmex.js';

const K = 10;

/** Recall@k of the graph against the exact scan of the same block, over `queries`. */
async function recall(runner: KernelRunner, graph: HnswGraphBlock, block: VectorBlock, queries: Float32Array, metric: Metric, ef: number): Promise<number> {
  const dims = block.dims;
  const n = queries.length / dims;
  let hits = 0;
  for (let q = 0; q < n; q++) {
    const vector = queries.subarray(q * dims, (q + 1) * dims);
    const exact = new Set((await runner.vectorSearch({ block, vector, metric, k: K, mode: 'inline' })).ids);
    const approx = await runner.hnswSearch({ graph, vectors: block, vector, k: K, ef });
    hits += [...approx.ids].filter((id) => exact.has(id)).length;
  }
  return hits / (n * K);
}

async function built(
  runner: KernelRunner,
  block: VectorBlock,
  metric: Metric,
  options: { m?: number; efConstruction?: number; seed?: number } = {},
): Promise<HnswGraphBlock> {
  const graph = runner.createHnswGraph(block, { metric, m: 12, efConstruction: 100, ...options });
  await runner.buildHnsw({ graph, vectors: block });
  return graph;
}

describe('HNSW graph kernel', () => {
  let runner: KernelRunner;
  beforeAll(() => {
    runner = createKernelRunner({ threads: 2 });
  });
  afterAll(() => runner.close());

  it.each(['dot', 'cosine', 'euclidean'] as const)(
    'reaches recall@10 >= 0.95 against the exact scan on 5k clustered 64-d vectors at ef 200 (%s)',
    async (metric) => {
      const rand = prng(7);
      const dims = 64;
      // Clustered data, like real embeddings: 50 centres plus noise.
      const centres = gaussianVectors(rand, 50, dims);
      const clustered = (n: number): Float32Array => {
        const noise = gaussianVectors(rand, n, dims);
        const out = new Float32Array(n * dims);
        for (let i = 0; i < n; i++) for (let j = 0; j < dims; j++) out[i * dims + j] = centres[Math.floor(rand() * 50) * dims + j]! * 2 + noise[i * dims + j]!;
        return out;
      };
      const block = runner.loadVectors(clustered(5_000), { dims });
      const graph = await built(runner, block, metric);
      expect(runner.hnswInserted(graph)).toBe(5_000);
      const r = await recall(runner, graph, block, clustered(100), metric, 200);
      runner.release(graph);
      runner.release(block);
      expect(r).toBeGreaterThanOrEqual(0.95);
    },
  );

  it('keeps every list within its degree bound, without self-links or duplicates, and reaches every node from the entry point', async () => {
    const rand = prng(11);
    const block = runner.loadVectors(gaussianVectors(rand, 3_000, 16), { dims: 16 });
    const graph = await built(runner, block, 'euclidean', { m: 8 });
    const { entry, neighbors } = runner.hnswLevel0(graph);
    neighbors.forEach((list, node) => {
      expect(list.length).toBeGreaterThan(0);
      expect(list.length).toBeLessThanOrEqual(16);
      expect(list.includes(node)).toBe(false);
      expect(new Set(list).size).toBe(list.length);
      for (const id of list) expect(id).toBeLessThan(3_000);
    });
    // Breadth-first over level 0 from the entry point.
    const seen = new Uint8Array(3_000);
    const queue = [entry];
    seen[entry] = 1;
    while (queue.length > 0)
      for (const id of neighbors[queue.pop()!]!)
        if (!seen[id]) {
          queue.push(id);
          seen[id] = 1;
        }
    // The pruning heuristic can strand a node or two on level 0 (hnswlib and the paper alike); a
    // broken link step strands hundreds.
    expect(seen.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(2_990);
    runner.release(graph);
    runner.release(block);
  });

  it('builds the same graph from the same seed, inline or on the pool, and a different one from another seed', async () => {
    const rand = prng(5);
    const block = runner.loadVectors(gaussianVectors(rand, 2_000, 24), { dims: 24 });
    const pooled = runner.createHnswGraph(block, { metric: 'cosine', m: 8, efConstruction: 64, seed: 1 });
    await runner.buildHnsw({ graph: pooled, vectors: block, mode: 'pool', chunk: 100 });
    const inline = runner.createHnswGraph(block, { metric: 'cosine', m: 8, efConstruction: 64, seed: 1 });
    await runner.buildHnsw({ graph: inline, vectors: block, mode: 'inline', chunk: 333 });
    const other = runner.createHnswGraph(block, { metric: 'cosine', m: 8, efConstruction: 64, seed: 2 });
    await runner.buildHnsw({ graph: other, vectors: block });
    expect(runner.hnswGraphBytes(inline)).toEqual(runner.hnswGraphBytes(pooled));
    expect(runner.hnswGraphBytes(other)).not.toEqual(runner.hnswGraphBytes(pooled));
    for (const g of [pooled, inline, other]) runner.release(g);
    runner.release(block);
  });

  it('reports progress per chunk, stops when aborted and resumes from where it stopped', async () => {
    const rand = prng(6);
    const block = runner.loadVectors(gaussianVectors(rand, 1_000, 8), { dims: 8 });
    const graph = runner.createHnswGraph(block, { metric: 'euclidean', m: 6, efConstruction: 32 });
    const controller = new AbortController();
    const progress: number[] = [];
    await expect(
      runner.buildHnsw({
        graph,
        vectors: block,
        chunk: 300,
        signal: controller.signal,
        onProgress: (done) => {
          progress.push(done);
          if (done >= 600) controller.abort();
        },
      }),
    ).rejects.toThrow();
    expect(progress).toEqual([300, 600]);
    expect(runner.hnswInserted(graph)).toBe(600);
    await expect(runner.hnswSearch({ graph, vectors: block, vector: new Array(8).fill(0), k: 3 })).rejects.toThrow(KernelInvalidInputError);
    await runner.buildHnsw({ graph, vectors: block, chunk: 300, onProgress: (done) => progress.push(done) });
    expect(progress).toEqual([300, 600, 900, 1_000]);
    const reference = runner.createHnswGraph(block, { metric: 'euclidean', m: 6, efConstruction: 32 });
    await runner.buildHnsw({ graph: reference, vectors: block });
    expect(runner.hnswGraphBytes(graph)).toEqual(runner.hnswGraphBytes(reference));
    runner.release(graph);
    runner.release(reference);
    runner.release(block);
  });

  it('returns only ids the filter allows, best first, with the exact similarity of each', async () => {
    const rand = prng(8);
    const dims = 32;
    const data = gaussianVectors(rand, 4_000, dims);
    const block = runner.loadVectors(data, { dims });
    const graph = await built(runner, block, 'dot');
    const even = runner.loadBitsetFromIds(
      Array.from({ length: 2_000 }, (_, i) => i * 2),
      4_000,
    );
    const vector = gaussianVectors(rand, 1, dims);
    const top = await runner.hnswSearch({ graph, vectors: block, vector, k: 20, ef: 100, filter: even });
    expect(top.ids.length).toBe(20);
    const exact = await runner.vectorSearch({ block, vector, metric: 'dot', k: 20, filter: even });
    const truth = new Set(exact.ids);
    expect([...top.ids].filter((id) => truth.has(id)).length).toBeGreaterThanOrEqual(18);
    for (let i = 0; i < top.ids.length; i++) {
      const id = top.ids[i]!;
      expect(id % 2).toBe(0);
      let dot = 0;
      for (let j = 0; j < dims; j++) dot += data[id * dims + j]! * vector[j]!;
      expect(top.scores[i]).toBeCloseTo(dot, 3);
      if (i > 0) expect(top.scores[i]!).toBeLessThanOrEqual(top.scores[i - 1]!);
    }
    for (const b of [even, graph, block]) runner.release(b);
  });

  it('walks on the int8 codes when quantized, with the recall of the f32 walk and exact f32 scores', async () => {
    const rand = prng(12);
    const dims = 48;
    const data = gaussianVectors(rand, 4_000, dims);
    const block = runner.loadVectors(data, { dims, quantize: true });
    const graph = await built(runner, block, 'cosine');
    const queries = gaussianVectors(rand, 50, dims);
    let f32Hits = 0;
    let int8Hits = 0;
    for (let q = 0; q < 50; q++) {
      const vector = queries.subarray(q * dims, (q + 1) * dims);
      const exact = new Set((await runner.vectorSearch({ block, vector, metric: 'cosine', k: K })).ids);
      const walkF32 = await runner.hnswSearch({ graph, vectors: block, vector, k: K, ef: 200 });
      const walkInt8 = await runner.hnswSearch({ graph, vectors: block, vector, k: K, ef: 200, quantized: true });
      f32Hits += [...walkF32.ids].filter((id) => exact.has(id)).length;
      int8Hits += [...walkInt8.ids].filter((id) => exact.has(id)).length;
      for (let i = 0; i < walkInt8.ids.length; i++) {
        const id = walkInt8.ids[i]!;
        let dot = 0,
          qq = 0,
          rr = 0;
        for (let j = 0; j < dims; j++) {
          dot += data[id * dims + j]! * vector[j]!;
          qq += vector[j]! ** 2;
          rr += data[id * dims + j]! ** 2;
        }
        expect(walkInt8.scores[i]).toBeCloseTo(dot / Math.sqrt(qq * rr), 5);
        if (i > 0) expect(walkInt8.scores[i]!).toBeLessThanOrEqual(walkInt8.scores[i - 1]!);
      }
    }
    expect(int8Hits / 500).toBeGreaterThanOrEqual(0.9);
    expect(int8Hits).toBeGreaterThanOrEqual(f32Hits - 25);
    const plain = runner.loadVectors(data.subarray(0, 10 * dims), { dims });
    const plainGraph = await built(runner, plain, 'cosine');
    await expect(runner.hnswSearch({ graph: plainGraph, vectors: plain, vector: queries.subarray(0, dims), k: 3, quantized: true })).rejects.toThrow(
      /quantize: true/,
    );
    for (const b of [graph, block, plainGraph, plain]) runner.release(b);
  });

  it('builds on the int8 codes when quantized: deterministic, and as good as the f32 build', async () => {
    const rand = prng(13);
    const dims = 32;
    const block = runner.loadVectors(gaussianVectors(rand, 3_000, dims), { dims, quantize: true });
    const build = async (quantized: boolean): Promise<HnswGraphBlock> => {
      const graph = runner.createHnswGraph(block, { metric: 'euclidean', m: 12, efConstruction: 100, seed: 4 });
      await runner.buildHnsw({ graph, vectors: block, quantized });
      return graph;
    };
    const f32 = await build(false);
    const int8 = await build(true);
    const again = await build(true);
    expect(runner.hnswGraphBytes(again)).toEqual(runner.hnswGraphBytes(int8));
    expect(runner.hnswGraphBytes(int8)).not.toEqual(runner.hnswGraphBytes(f32));
    const queries = gaussianVectors(rand, 60, dims);
    const f32Recall = await recall(runner, f32, block, queries, 'euclidean', 64);
    const int8Recall = await recall(runner, int8, block, queries, 'euclidean', 64);
    expect(int8Recall).toBeGreaterThanOrEqual(f32Recall - 0.03);
    const plain = runner.loadVectors(gaussianVectors(rand, 10, dims), { dims });
    const unquantized = runner.createHnswGraph(plain, { metric: 'euclidean' });
    await expect(runner.buildHnsw({ graph: unquantized, vectors: plain, quantized: true })).rejects.toThrow(/quantize: true/);
    for (const b of [f32, int8, again, unquantized, plain, block]) runner.release(b);
  });

  it('continues a finished graph over more rows: copies its links, then inserts only the rest', async () => {
    const rand = prng(14);
    const dims = 24;
    const data = gaussianVectors(rand, 3_000, dims);
    const head = runner.loadVectors(data.subarray(0, 2_000 * dims), { dims });
    const all = runner.loadVectors(data, { dims });
    const first = await built(runner, head, 'cosine', { seed: 1 });
    const grown = runner.createHnswGraph(all, { metric: 'cosine', m: 12, efConstruction: 100, seed: 2, from: first });
    expect(runner.hnswInserted(grown)).toBe(2_000);
    const before = runner.hnswLevel0(first);
    const copied = runner.hnswLevel0(grown);
    expect(copied.entry).toBe(before.entry);
    expect(copied.neighbors.slice(0, 2_000)).toEqual(before.neighbors);
    expect([...copied.levels.subarray(0, 2_000)]).toEqual([...before.levels]);
    const progress: number[] = [];
    await runner.buildHnsw({ graph: grown, vectors: all, chunk: 500, onProgress: (n) => progress.push(n) });
    expect(progress).toEqual([2_500, 3_000]);
    const fresh = await built(runner, all, 'cosine', { seed: 2 });
    const queries = gaussianVectors(rand, 60, dims);
    const grownRecall = await recall(runner, grown, all, queries, 'cosine', 64);
    expect(grownRecall).toBeGreaterThanOrEqual((await recall(runner, fresh, all, queries, 'cosine', 64)) - 0.03);
    // Reachability: every row, old or new, can be found from the entry point.
    const { entry, neighbors } = runner.hnswLevel0(grown);
    const seen = new Uint8Array(3_000);
    const queue = [entry];
    seen[entry] = 1;
    while (queue.length > 0)
      for (const id of neighbors[queue.pop()!]!)
        if (!seen[id]) {
          queue.push(id);
          seen[id] = 1;
        }
    expect(seen.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(2_990);
    expect(() => runner.createHnswGraph(all, { metric: 'cosine', m: 8, efConstruction: 100, from: first })).toThrow(/other parameters/);
    expect(() => runner.createHnswGraph(head, { metric: 'cosine', m: 12, efConstruction: 100, from: grown })).toThrow(/more than the block/);
    for (const b of [first, grown, fresh, head, all]) runner.release(b);
  });

  it('round-trips through its bytes and refuses bytes that do not fit the block', async () => {
    const rand = prng(9);
    const block = runner.loadVectors(gaussianVectors(rand, 500, 12), { dims: 12 });
    const graph = await built(runner, block, 'cosine');
    const bytes = runner.hnswGraphBytes(graph);
    const loaded = runner.loadHnswGraph(block, bytes);
    const vector = gaussianVectors(rand, 1, 12);
    expect(await runner.hnswSearch({ graph: loaded, vectors: block, vector, k: 5 })).toEqual(await runner.hnswSearch({ graph, vectors: block, vector, k: 5 }));
    const other = runner.loadVectors(gaussianVectors(rand, 499, 12), { dims: 12 });
    expect(() => runner.loadHnswGraph(other, bytes)).toThrow(/covers 500 x 12/);
    expect(() => runner.loadHnswGraph(block, bytes.subarray(0, 200))).toThrow(/declares/);
    const unfinished = runner.createHnswGraph(block, { metric: 'cosine' });
    expect(() => runner.loadHnswGraph(block, runner.hnswGraphBytes(unfinished))).toThrow(/not finished/);
    for (const b of [graph, loaded, other, unfinished, block]) runner.release(b);
  });

  it('answers an empty graph and a one-node graph', async () => {
    const one = runner.loadVectors([1, 2, 3], { dims: 3 });
    const graph = await built(runner, one, 'euclidean');
    const top = await runner.hnswSearch({ graph, vectors: one, vector: [1, 2, 4], k: 3 });
    expect([...top.ids]).toEqual([0]);
    expect(top.scores[0]).toBeCloseTo(-1, 6);
    const none = runner.loadVectors([], { dims: 3 });
    const empty = await built(runner, none, 'euclidean');
    expect((await runner.hnswSearch({ graph: empty, vectors: none, vector: [0, 0, 0], k: 3 })).ids.length).toBe(0);
    for (const b of [graph, one, empty, none]) runner.release(b);
  });

  describe.skipIf(!mnistAvailable())('on mnist10k', () => {
    it.each([
      ['euclidean', 'groundtruth_l2.ivecs'],
      ['cosine', 'groundtruth_cos.ivecs'],
    ] as const)(
      'reaches recall@10 >= 0.95 against the published %s ground truth at M 16, efConstruction 200, ef 40, walking f32 or int8',
      async (metric, gtFile) => {
        const base = readVecs(fileURLToPath(new URL('base.fvecs.gz', MNIST_DIR)), 'f');
        const queries = readVecs(fileURLToPath(new URL('query.fvecs.gz', MNIST_DIR)), 'f').data as Float32Array;
        const gt = readVecs(fileURLToPath(new URL(gtFile, MNIST_DIR)), 'i');
        const block = runner.loadVectors(base.data, { dims: base.dims, quantize: true });
        const graph = await built(runner, block, metric, { m: 16, efConstruction: 200 });
        for (const quantized of [false, true]) {
          let hits = 0;
          const n = 300;
          for (let q = 0; q < n; q++) {
            const top = await runner.hnswSearch({
              graph,
              vectors: block,
              vector: queries.subarray(q * base.dims, (q + 1) * base.dims),
              k: K,
              ef: 40,
              quantized,
            });
            const truth = new Set(gt.data.subarray(q * gt.dims, q * gt.dims + K));
            hits += [...top.ids].filter((id) => truth.has(id)).length;
          }
          expect(hits / (n * K)).toBeGreaterThanOrEqual(0.95);
        }
        runner.release(graph);
        runner.release(block);
      },
      120_000,
    );
  });
});
