import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, json, postJson, tempDir, type TestApp } from '../../helpers/app.js';
import { prng } from '../../helpers/prng.js';

const DIMS = 8;
const rand = prng(42);
const docs = Array.from({ length: 240 }, (_, i) => ({
  id: `v${i}`,
  title: i % 2 ? 'odd vector document' : 'even vector document',
  parity: i % 2 ? 'odd' : 'even',
  _vector: Array.from({ length: DIMS }, () => Math.round((rand() * 2 - 1) * 1000) / 1000),
}));
const deleted = new Set(['v3', 'v10', 'v200']);
const query = Array.from({ length: DIMS }, () => Math.round((rand() * 2 - 1) * 1000) / 1000);

const dot = (a: number[], b: number[]): number => a.reduce((s, x, i) => s + x * b[i]!, 0);
const metrics = {
  cosine: (a: number[], b: number[]) => dot(a, b) / Math.sqrt(dot(a, a) * dot(b, b)),
  dot_product: dot,
  euclidean: (a: number[], b: number[]) => 1 / (1 + a.reduce((s, x, i) => s + (x - b[i]!) ** 2, 0)),
};

describe('semantic and hybrid search', () => {
  let t: TestApp;
  let base: string;
  const dataDir = tempDir();
  const manifest = { listeners: [{ name: 'search', port: 0, plugins: ['search'] }], plugins: { search: {} }, kernels: { threads: 1 } };

  beforeAll(async () => {
    t = await createTestApp(manifest, { dataDir });
    base = `${t.url()}/v1/indexes`;
    for (const metric of Object.keys(metrics)) {
      await postJson(base, {
        name: `m-${metric}`,
        mappings: { title: { type: 'text' }, parity: { type: 'keyword' } },
        settings: { vectorDimensions: DIMS, vectorMetric: metric },
      });
      // Two writes, so two segments; then deletes, so tombstones.
      expect((await json(await postJson(`${base}/m-${metric}/documents`, docs.slice(0, 120)))).errors).toEqual([]);
      expect((await json(await postJson(`${base}/m-${metric}/documents`, docs.slice(120)))).errors).toEqual([]);
      expect((await json(await postJson(`${base}/m-${metric}/documents/delete`, { ids: [...deleted] }))).deleted).toBe(3);
    }
  });
  afterAll(() => t.stop());

  const bruteForce = (metric: keyof typeof metrics, filter?: (d: (typeof docs)[number]) => boolean): Array<{ id: string; score: number }> =>
    docs
      .filter((d) => !deleted.has(d.id) && (!filter || filter(d)))
      .map((d) => ({ id: d.id, score: metrics[metric](query, d._vector) }))
      .sort((a, b) => b.score - a.score);

  for (const metric of Object.keys(metrics) as Array<keyof typeof metrics>) {
    it(`ranks by ${metric} exactly as a brute-force computation, across segments and deletes`, async () => {
      const result = await json(await postJson(`${base}/m-${metric}/search`, { mode: 'semantic', vector: query, size: 10 }));
      const expected = bruteForce(metric).slice(0, 10);
      expect(result.total).toBe(docs.length - deleted.size);
      expect(result.hits.map((h: { id: string }) => h.id)).toEqual(expected.map((e) => e.id));
      result.hits.forEach((h: { score: number }, i: number) => expect(h.score).toBeCloseTo(expected[i]!.score, 4));
    });
  }

  it('applies filters before top-k and keeps _vector out of sources unless projected', async () => {
    const result = await json(await postJson(`${base}/m-cosine/search`, { mode: 'semantic', vector: query, size: 5, filter: { eq: { parity: 'odd' } } }));
    expect(result.hits.map((h: { id: string }) => h.id)).toEqual(
      bruteForce('cosine', (d) => d.parity === 'odd')
        .slice(0, 5)
        .map((e) => e.id),
    );
    expect(result.hits[0].source._vector).toBeUndefined();
    const projected = await json(await postJson(`${base}/m-cosine/search`, { mode: 'semantic', vector: query, size: 1, select: ['_vector'] }));
    expect(projected.hits[0].source._vector).toHaveLength(DIMS);
  });

  it('answers invalid_vector for a wrong-length query or document vector, and vector_required without one', async () => {
    const short = await postJson(`${base}/m-cosine/search`, { mode: 'semantic', vector: [1, 2] });
    expect(short.status).toBe(400);
    expect((await json(short)).error.code).toBe('invalid_vector');
    const doc = await json(await postJson(`${base}/m-cosine/documents`, [{ id: 'bad', _vector: [1, 2, 3] }]));
    expect(doc.errors).toEqual([expect.objectContaining({ position: 0, id: 'bad', code: 'invalid_vector' })]);
    expect((await json(await postJson(`${base}/m-cosine/search`, { mode: 'semantic', q: 'odd' }))).error.code).toBe('vector_required');
  });

  it('fuses keyword and vector ranks with RRF, weighted by semanticRatio, and explains each hit', async () => {
    const result = await json(
      await postJson(`${base}/m-cosine/search`, {
        mode: 'hybrid',
        q: 'odd',
        vector: query,
        size: 5,
        windowSize: 50,
        explain: true,
        semanticRatio: 0.5,
        fusion: 'rrf',
      }),
    );
    const keyword = await json(await postJson(`${base}/m-cosine/search`, { q: 'odd', size: 50, highlight: false }));
    const semantic = bruteForce('cosine').slice(0, 50);
    const rrf = new Map<string, number>();
    keyword.hits.forEach((h: { id: string }, i: number) => rrf.set(h.id, (rrf.get(h.id) ?? 0) + 0.5 / (60 + i + 1)));
    semantic.forEach((h, i) => rrf.set(h.id, (rrf.get(h.id) ?? 0) + 0.5 / (60 + i + 1)));
    const expected = [...rrf.entries()].sort((a, b) => b[1] - a[1]).slice(0, 5);
    expect(result.hits.map((h: { id: string }) => h.id)).toEqual(expected.map(([id]) => id));
    const first = result.hits[0];
    expect(first.score).toBeCloseTo(expected[0]![1], 6);
    expect(first.explain.rrfScore).toBe(first.score);
    expect(first.explain.fusion).toBe('rrf');
    const semanticRank = semantic.findIndex((s) => s.id === first.id) + 1;
    expect(first.explain.semantic).toEqual({ rank: semanticRank, score: expect.any(Number), weight: 0.5, contribution: 0.5 / (60 + semanticRank) });
    // The sides' contributions add up to the fused score: explain says why the hit ranks there.
    expect((first.explain.keyword?.contribution ?? 0) + first.explain.semantic.contribution).toBeCloseTo(first.score, 6);
    expect(first.highlight.title?.[0]).toContain('<mark>odd</mark>');
  });

  it('fuses by convex combination of min-max normalised scores with fusion: convex', async () => {
    const body = { mode: 'hybrid', q: 'odd', vector: query, size: 5, windowSize: 50, explain: true, semanticRatio: 0.3, fusion: 'convex' };
    const result = await json(await postJson(`${base}/m-cosine/search`, body));
    const keyword = (await json(await postJson(`${base}/m-cosine/search`, { q: 'odd', size: 50, highlight: false }))).hits as Array<{
      id: string;
      score: number;
    }>;
    const semantic = bruteForce('cosine').slice(0, 50);
    const fused = new Map<string, number>();
    const add = (list: Array<{ id: string; score: number }>, weight: number): void => {
      const max = list[0]!.score;
      const min = list.at(-1)!.score;
      // Scores that all tie normalise to 1 (every keyword hit of "odd" scores the same here).
      for (const h of list) fused.set(h.id, (fused.get(h.id) ?? 0) + weight * (max > min ? (h.score - min) / (max - min) : 1));
    };
    add(keyword, 0.7);
    add(semantic, 0.3);
    const expected = [...fused.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 5);
    expect(result.hits.map((h: { id: string }) => h.id)).toEqual(expected.map(([id]) => id));
    const first = result.hits[0];
    expect(first.score).toBeCloseTo(expected[0]![1], 5);
    expect(first.explain).toMatchObject({ fusion: 'convex', convexScore: first.score });
    expect((first.explain.keyword?.contribution ?? 0) + (first.explain.semantic?.contribution ?? 0)).toBeCloseTo(first.score, 6);
    expect(first.explain.keyword?.weight ?? first.explain.semantic.weight).toBeGreaterThan(0);
  });

  it("returns the other side's order unchanged when one side finds nothing", async () => {
    const result = await json(await postJson(`${base}/m-cosine/search`, { mode: 'hybrid', q: 'zzzunknownword', vector: query, size: 5 }));
    expect(result.hits.map((h: { id: string }) => h.id)).toEqual(
      bruteForce('cosine')
        .slice(0, 5)
        .map((e) => e.id),
    );
  });

  it('keeps vectors across a restart', async () => {
    await t.stop();
    t = await createTestApp(manifest, { dataDir });
    base = `${t.url()}/v1/indexes`;
    const result = await json(await postJson(`${base}/m-dot_product/search`, { mode: 'semantic', vector: query, size: 3 }));
    expect(result.hits.map((h: { id: string }) => h.id)).toEqual(
      bruteForce('dot_product')
        .slice(0, 3)
        .map((e) => e.id),
    );
  });
});
