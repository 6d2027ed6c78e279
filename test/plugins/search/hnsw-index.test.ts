import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, json, postJson, tempDir, type TestApp } from '../../helpers/app.js';
import { prng } from './support/prng.js';

// 64-d Gaussian noise is hard for any graph (no low-dimensional structure), so a narrow beam
// visibly misses neighbours that a wide one finds: which shows the graph, not a scan, answered.
const DIMS = 64;
const rand = prng(21);
const gauss = (): number => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
const docs = Array.from({ length: 3000 }, (_, i) => ({
  id: `d${i}`,
  group: i % 2 === 0 ? 'even' : 'odd',
  rare: i % 100 === 0,
  _vector: Array.from({ length: DIMS }, gauss),
}));
const queries = Array.from({ length: 30 }, () => Array.from({ length: DIMS }, gauss));
const l2 = (a: number[], b: number[]): number => a.reduce((s, x, i) => s + (x - b[i]!) ** 2, 0);
const deleted = new Set(['d5', 'd17', 'd2500']);

function exactTop(q: number[], k: number, keep: (d: (typeof docs)[number]) => boolean = () => true): string[] {
  return docs
    .filter((d) => !deleted.has(d.id) && keep(d))
    .map((d) => ({ id: d.id, s: l2(q, d._vector) }))
    .sort((a, b) => a.s - b.s)
    .slice(0, k)
    .map((d) => d.id);
}

describe('vectorIndex hnsw', () => {
  const dataDir = tempDir();
  let t: TestApp;
  let base: string;
  const manifest = { listeners: [{ name: 'search', port: 0, plugins: ['search'] }], plugins: { search: {} } };

  const stats = async (name = 'g'): Promise<any> => (await json(await fetch(`${base}/${name}`))).index.stats;
  const waitForGraphs = async (name = 'g'): Promise<any> => {
    for (let i = 0; i < 600; i++) {
      const s = await stats(name);
      if (s.vectorIndex && s.vectorIndex.ready === s.vectorIndex.segments && s.vectorIndex.segments > 0) return s;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`graphs of ${name} not ready: ${JSON.stringify(await stats(name))}`);
  };
  const search = async (body: Record<string, unknown>, name = 'g'): Promise<any> =>
    json(await postJson(`${base}/${name}/search`, { mode: 'semantic', select: ['id'], ...body }));
  const recall = async (body: Record<string, unknown>, keep?: (d: (typeof docs)[number]) => boolean): Promise<number> => {
    let hits = 0;
    for (const q of queries) {
      const truth = new Set(exactTop(q, 10, keep));
      const res = await search({ vector: q, size: 10, ...body });
      hits += res.hits.filter((h: { id: string }) => truth.has(h.id)).length;
    }
    return hits / (queries.length * 10);
  };

  beforeAll(async () => {
    t = await createTestApp(manifest, { dataDir });
    base = `${t.url()}/v1/indexes`;
    const created = await postJson(base, {
      name: 'g',
      mappings: { group: { type: 'keyword' }, rare: { type: 'boolean' } },
      settings: { vectorDimensions: DIMS, vectorMetric: 'euclidean', vectorIndex: { type: 'hnsw', m: 8, efConstruction: 64 } },
    });
    expect(created.status).toBe(200);
    // Two writes, two segments, two graphs.
    expect((await json(await postJson(`${base}/g/documents`, docs.slice(0, 1500)))).errors).toEqual([]);
    expect((await json(await postJson(`${base}/g/documents`, docs.slice(1500)))).errors).toEqual([]);
    expect((await json(await postJson(`${base}/g/documents/delete`, { ids: [...deleted] }))).deleted).toBe(3);
  });
  afterAll(async () => {
    await t.stop();
  });

  it('builds one graph per segment in the background and reports the progress in the index stats', async () => {
    const s = await waitForGraphs();
    expect(s.vectorIndex).toEqual({ type: 'hnsw', segments: 2, ready: 2, failed: 0, inserted: 3000, total: 3000 });
    expect(t.logs.filter((l) => l.msg === 'vector graph built')).toHaveLength(2);
    const index = (await json(await fetch(`${base}/g`))).index;
    expect(index.settings.vectorIndex).toEqual({ type: 'hnsw', m: 8, efConstruction: 64, efSearch: 100 });
  });

  it('searches through the graph: a narrow beam misses neighbours a wide one finds, and exact: true scans', async () => {
    await waitForGraphs();
    const narrow = await recall({ efSearch: 10 });
    const wide = await recall({ efSearch: 300 });
    expect(narrow).toBeLessThan(0.9);
    expect(wide).toBeGreaterThanOrEqual(0.95);
    expect(wide).toBeGreaterThan(narrow);
    expect(await recall({ efSearch: 10, exact: true })).toBe(1);
  });

  it('reports the exact similarity of each hit and never returns a deleted document', async () => {
    await waitForGraphs();
    const own = docs.find((d) => d.id === 'd17')!;
    const res = await search({ vector: own._vector, size: 5, efSearch: 200 });
    expect(res.hits.map((h: { id: string }) => h.id)).not.toContain('d17');
    for (const hit of res.hits) {
      const doc = docs.find((d) => d.id === hit.id)!;
      expect(hit.score).toBeCloseTo(1 / (1 + l2(own._vector, doc._vector)), 5);
    }
  });

  it('applies a filter inside the graph walk', async () => {
    await waitForGraphs();
    const res = await search({ vector: queries[0], size: 10, filter: { eq: { group: 'odd' } }, efSearch: 300 });
    expect(res.hits).toHaveLength(10);
    expect(res.hits.every((h: { id: string }) => Number(h.id.slice(1)) % 2 === 1)).toBe(true);
    expect(await recall({ filter: { eq: { group: 'odd' } }, efSearch: 300 }, (d) => d.group === 'odd')).toBeGreaterThanOrEqual(0.9);
  });

  it('scans instead when a filter leaves a few rows, so the answer is exact', async () => {
    await waitForGraphs();
    for (const q of queries.slice(0, 5)) {
      const res = await search({ vector: q, size: 10, filter: { eq: { rare: true } }, efSearch: 10 });
      expect(res.hits.map((h: { id: string }) => h.id)).toEqual(exactTop(q, 10, (d) => d.rare));
    }
  });

  it('rejects an efSearch out of range and vectorIndex settings out of range', async () => {
    const bad = await search({ vector: queries[0], efSearch: 0 });
    expect(bad.error.code).toBe('validation_failed');
    const res = await postJson(base, { name: 'bad', settings: { vectorDimensions: 4, vectorIndex: { type: 'hnsw', m: 2 } } });
    expect(res.status).toBe(400);
    expect((await json(res)).error.details.issues[0].path).toContain('vectorIndex');
  });

  it('walks the graph on int8 codes on an index with vectorQuantization int8, reporting exact similarities', async () => {
    await postJson(base, {
      name: 'g8',
      settings: { vectorDimensions: DIMS, vectorMetric: 'euclidean', vectorQuantization: 'int8', vectorIndex: { type: 'hnsw', m: 8, efConstruction: 64 } },
    });
    expect((await json(await postJson(`${base}/g8/documents`, docs))).errors).toEqual([]);
    expect((await json(await postJson(`${base}/g8/documents/delete`, { ids: [...deleted] }))).deleted).toBe(3);
    await waitForGraphs('g8');
    let hits = 0;
    for (const q of queries) {
      const truth = new Set(exactTop(q, 10));
      const res = await search({ vector: q, size: 10, efSearch: 300 }, 'g8');
      hits += res.hits.filter((h: { id: string }) => truth.has(h.id)).length;
      const doc = docs.find((d) => d.id === res.hits[0].id)!;
      expect(res.hits[0].score).toBeCloseTo(1 / (1 + l2(q, doc._vector)), 5);
    }
    expect(hits / (queries.length * 10)).toBeGreaterThanOrEqual(0.95);
  });

  it('keeps its graphs across a restart: ready at once, nothing rebuilt, the same answers', async () => {
    await waitForGraphs();
    const before = await search({ vector: queries[1], size: 10, efSearch: 20 });
    await t.stop();
    t = await createTestApp(manifest, { dataDir });
    base = `${t.url()}/v1/indexes`;
    expect((await stats()).vectorIndex).toEqual({ type: 'hnsw', segments: 2, ready: 2, failed: 0, inserted: 3000, total: 3000 });
    expect(t.logs.filter((l) => l.msg === 'vector graph built')).toHaveLength(0);
    expect((await search({ vector: queries[1], size: 10, efSearch: 20 })).hits).toEqual(before.hits);
  });

  it('rebuilds the graphs when vectorIndex changes, and drops them for flat', async () => {
    await waitForGraphs();
    const patch = (settings: unknown): Promise<Response> =>
      fetch(`${base}/g`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ settings }) });
    const logged = t.logs.filter((l) => l.msg === 'vector graph built').length;
    const changed = await json(await patch({ vectorIndex: { type: 'hnsw', m: 12, efConstruction: 80 } }));
    expect(changed.reindexed).toBe(false);
    await waitForGraphs();
    expect(t.logs.filter((l) => l.msg === 'vector graph built').length).toBe(logged + 2);
    expect(await recall({ efSearch: 300 })).toBeGreaterThanOrEqual(0.95);
    await patch({ vectorIndex: { type: 'flat' } });
    expect((await stats()).vectorIndex).toBeUndefined();
    expect(await recall({})).toBe(1);
  });
});

describe('vectorIndex hnsw across merges', () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await createTestApp({ listeners: [{ name: 'search', port: 0, plugins: ['search'] }], plugins: { search: { options: { maxSegments: 1 } } } });
    base = `${t.url()}/v1/indexes`;
    await postJson(base, {
      name: 'm',
      settings: { vectorDimensions: DIMS, vectorMetric: 'euclidean', vectorIndex: { type: 'hnsw', m: 8, efConstruction: 64 } },
    });
  });
  afterAll(() => t.stop());

  const built = (): Array<Record<string, unknown>> => t.logs.filter((l) => l.msg === 'vector graph built');
  /** Until one segment of `nodes` rows remains and its graph is built (logged after `after` builds). */
  const settle = async (nodes: number, after = 0): Promise<Record<string, unknown>> => {
    for (let i = 0; i < 600; i++) {
      const s = (await json(await fetch(`${base}/m`))).index.stats;
      const done = built()
        .slice(after)
        .find((l) => l.nodes === nodes);
      if (s.segments === 1 && s.vectorIndex.ready === 1 && done) return done;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('merge or graph build did not finish');
  };

  it("starts the merged graph from the largest part's graph and inserts only the other rows", async () => {
    expect(
      (
        await json(
          await postJson(
            `${base}/m/documents`,
            docs.slice(0, 2000).map(({ id, _vector }) => ({ id, _vector })),
          ),
        )
      ).errors,
    ).toEqual([]);
    expect(await settle(2000)).toMatchObject({ nodes: 2000, reused: 0 });
    expect(
      (
        await json(
          await postJson(
            `${base}/m/documents`,
            docs.slice(2000).map(({ id, _vector }) => ({ id, _vector })),
          ),
        )
      ).errors,
    ).toEqual([]);
    // The second write makes two segments; the merge back to one builds the merged graph.
    expect(await settle(3000)).toMatchObject({ nodes: 3000, reused: 2000 });
    let hits = 0;
    for (const q of queries) {
      const truth = new Set(
        docs
          .map((d) => ({ id: d.id, s: l2(q, d._vector) }))
          .sort((a, b) => a.s - b.s)
          .slice(0, 10)
          .map((d) => d.id),
      );
      const res = await json(await postJson(`${base}/m/search`, { mode: 'semantic', vector: q, size: 10, efSearch: 300, select: ['id'] }));
      hits += res.hits.filter((h: { id: string }) => truth.has(h.id)).length;
    }
    expect(hits / (queries.length * 10)).toBeGreaterThanOrEqual(0.95);
  });

  it('does not start from a part with deletions, whose rows move in the merge', async () => {
    await settle(3000);
    expect((await json(await postJson(`${base}/m/documents/delete`, { ids: ['d1'] }))).deleted).toBe(1);
    const before = built().length;
    await postJson(`${base}/m/documents`, [{ id: 'extra', _vector: queries[0] }]);
    const merged = await settle(3000, before);
    // The 2,999 surviving rows are renumbered: only the one-row part could seed it.
    expect([0, 1]).toContain(merged.reused);
    const res = await json(await postJson(`${base}/m/search`, { mode: 'semantic', vector: queries[0], size: 1, select: ['id'] }));
    expect(res.hits[0].id).toBe('extra');
  });
});

describe('the merge policy of an HNSW index (default maxSegments 8)', () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await createTestApp({ listeners: [{ name: 'search', port: 0, plugins: ['search'] }], plugins: { search: {} } });
    base = `${t.url()}/v1/indexes`;
    for (const [name, vectorIndex] of [
      ['h', { type: 'hnsw', m: 8, efConstruction: 64 }],
      ['f', { type: 'flat' }],
    ] as const) {
      expect((await postJson(base, { name, settings: { vectorDimensions: DIMS, vectorMetric: 'euclidean', vectorIndex } })).status).toBe(200);
      // Four ordinary writes: four segments, each with its own graph at first.
      for (let i = 0; i < 4; i++) {
        const batch = docs.slice(i * 750, (i + 1) * 750).map(({ id, _vector }) => ({ id, _vector }));
        expect((await json(await postJson(`${base}/${name}/documents`, batch))).errors).toEqual([]);
      }
    }
  });
  afterAll(() => t.stop());

  const stats = async (name: string): Promise<any> => (await json(await fetch(`${base}/${name}`))).index.stats;
  const truth = (q: number[]): string[] =>
    docs
      .map((d) => ({ id: d.id, s: l2(q, d._vector) }))
      .sort((a, b) => a.s - b.s)
      .slice(0, 10)
      .map((d) => d.id);
  const search = async (name: string, body: Record<string, unknown>): Promise<string[]> =>
    (await json(await postJson(`${base}/${name}/search`, { mode: 'semantic', size: 10, select: ['id'], ...body }))).hits.map((h: { id: string }) => h.id);

  it('ends with one segment whose graph started from the largest part, without a manual merge; a flat index keeps its four', async () => {
    let s: any;
    for (let i = 0; i < 600; i++) {
      s = await stats('h');
      if (s.segments === 1 && s.vectorIndex.ready === 1) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(s.segments).toBe(1);
    expect(s.vectorIndex).toEqual({ type: 'hnsw', segments: 1, ready: 1, failed: 0, inserted: 3000, total: 3000 });
    // The last graph built is the merged one, and it reused a part's graph rather than starting over.
    const merged = t.logs.filter((l) => l.msg === 'vector graph built' && l.index === 'h').at(-1)!;
    expect(merged).toMatchObject({ nodes: 3000 });
    expect(merged.reused).toBeGreaterThanOrEqual(750);
    expect((await stats('f')).segments).toBe(4);
  });

  it('answers as before the merge: exact scans equal the true top 10, graph walks reach recall 0.95', async () => {
    let hits = 0;
    for (const q of queries) {
      const expected = truth(q);
      expect(await search('h', { vector: q, exact: true })).toEqual(expected);
      expect(await search('f', { vector: q })).toEqual(expected);
      const walked = await search('h', { vector: q, efSearch: 300 });
      hits += walked.filter((id) => expected.includes(id)).length;
    }
    expect(hits / (queries.length * 10)).toBeGreaterThanOrEqual(0.95);
  });
});
