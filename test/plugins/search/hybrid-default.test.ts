import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIN_TRAINING_DOCS, RETRAIN_GROWTH, trainingDue } from '../../../plugins/search/embedders/corpus-lsa.js';
import { fuseWindows } from '../../../plugins/search/search/fusion.js';
import { createTestApp, json, postJson, type TestApp } from '../../helpers/app.js';
import { CRANFIELD_DIR, cranfieldAvailable, loadCranfield, type Cranfield } from './support/cranfield.js';
import { ndcgAt } from './support/ndcg.js';

describe('convex fusion at the default ratio', () => {
  const keyword = [
    { id: 'k1', score: 12 },
    { id: 'k2', score: 9 },
    { id: 'k3', score: 4 },
    { id: 'k4', score: 2 },
  ];
  const semantic = [
    { id: 's1', score: 0.9 },
    { id: 'k3', score: 0.8 },
    { id: 'k1', score: 0.5 },
  ];

  it('keeps keyword dominant: a document only the semantic side found passes only weak keyword hits', () => {
    const fused = fuseWindows(keyword, semantic, { fusion: 'convex', semanticRatio: 0.3 });
    // k1: 0.7 * 1 + 0.3 * 0; k2: 0.7 * 0.7; k3: 0.7 * 0.2 + 0.3 * 0.75; s1: 0.3 * 1; k4: 0.
    expect(fused.map((f) => f.id)).toEqual(['k1', 'k2', 'k3', 's1', 'k4']);
    expect(fused.map((f) => f.score)).toEqual([0.7, expect.closeTo(0.49, 12), expect.closeTo(0.365, 12), expect.closeTo(0.3, 12), 0]);
    const k3 = fused[2]!;
    expect(k3.keyword).toEqual({ rank: 3, score: 4, weight: 0.7, normalized: expect.closeTo(0.2, 12), contribution: expect.closeTo(0.14, 12) });
    expect(k3.semantic).toEqual({
      rank: 2,
      score: 0.8,
      weight: expect.closeTo(0.3, 12),
      normalized: expect.closeTo(0.75, 12),
      contribution: expect.closeTo(0.225, 12),
    });
    expect(k3.keyword!.contribution + k3.semantic!.contribution).toBeCloseTo(k3.score, 12);
    expect(fused.find((f) => f.id === 's1')!.keyword).toBeNull();
  });

  it('sums weight / (rrfK + rank) per side for rrf', () => {
    const fused = fuseWindows(keyword, semantic, { fusion: 'rrf', semanticRatio: 0.5, rrfK: 60 });
    expect(fused[0]).toEqual({
      id: 'k1',
      score: 0.5 / 61 + 0.5 / 63,
      keyword: { rank: 1, score: 12, weight: 0.5, contribution: 0.5 / 61 },
      semantic: { rank: 3, score: 0.5, weight: 0.5, contribution: 0.5 / 63 },
    });
  });
});

describe('when corpus-lsa-v1 trains', () => {
  it('trains first at MIN_TRAINING_DOCS live documents, then each time they have doubled', () => {
    expect(trainingDue(MIN_TRAINING_DOCS - 1, undefined)).toBe(false);
    expect(trainingDue(MIN_TRAINING_DOCS, undefined)).toBe(true);
    expect(trainingDue(2 * MIN_TRAINING_DOCS - 1, { docCount: MIN_TRAINING_DOCS })).toBe(false);
    expect(trainingDue(RETRAIN_GROWTH * 1000, { docCount: 1000 })).toBe(true);
  });
});

if (!cranfieldAvailable()) console.warn(`Hybrid default test skipped: ${CRANFIELD_DIR} is missing (see ../shared/data/README.md)`);

describe.skipIf(!cranfieldAvailable())('hybrid at its defaults on Cranfield, through the API', () => {
  let t: TestApp;
  let base: string;
  let data: Cranfield;
  const search = async (body: Record<string, unknown>): Promise<{ hits: Array<{ id: string; score: number; explain?: any }> }> =>
    json(await postJson(`${base}/cran/search`, { size: 10, highlight: false, select: ['id'], ...body }));
  const meanNdcg = async (body: Record<string, unknown>): Promise<number> => {
    let sum = 0;
    for (const q of data.queries) {
      const { hits } = await search({ q: q.text, ...body });
      sum += ndcgAt(
        10,
        hits.map((h) => h.id),
        data.qrels.get(q.id) ?? new Map(),
      );
    }
    return sum / data.queries.length;
  };

  beforeAll(async () => {
    data = loadCranfield();
    t = await createTestApp({ listeners: [{ name: 'search', port: 0, plugins: ['search'] }], plugins: { search: {} } });
    base = `${t.url()}/v1/indexes`;
    const created = await postJson(base, {
      name: 'cran',
      mappings: { title: { type: 'text', analyzer: 'english' }, text: { type: 'text', analyzer: 'english' } },
      settings: { autoEmbed: true },
    });
    expect(created.status).toBe(200);
    expect((await json(created)).index.settings.embedder).toEqual({ type: 'builtin', model: 'corpus-lsa-v1' });
  });
  afterAll(() => t?.stop());

  it("keeps keyword's ranking before the embedder has learned the index, and says why", async () => {
    expect((await json(await postJson(`${base}/cran/documents`, data.docs.slice(0, 150)))).errors).toEqual([]);
    expect((await json(await fetch(`${base}/cran`))).index.stats.embedder).toEqual({ model: 'corpus-lsa-v1', trained: false });
    for (const q of data.queries.slice(0, 20)) {
      const keyword = await search({ q: q.text });
      const hybrid = await search({ q: q.text, mode: 'hybrid', explain: true });
      expect(hybrid.hits.map((h) => h.id)).toEqual(keyword.hits.map((h) => h.id));
    }
    const { hits } = await search({ q: data.queries[0]!.text, mode: 'hybrid', explain: true });
    expect(hits[0]!.explain).toMatchObject({
      fusion: 'convex',
      weights: { keyword: 1, semantic: 0 },
      semanticRatio: { value: 0, source: 'default', embedder: 'hashed-ngrams-v2', reason: expect.stringContaining('corpus-lsa-v1 has not learned') },
    });
  });

  it('ranks at least as well as keyword once trained in the background, and explains each hit', async () => {
    for (let i = 150; i < data.docs.length; i += 500) {
      expect((await json(await postJson(`${base}/cran/documents`, data.docs.slice(i, i + 500)))).errors).toEqual([]);
    }
    // Training jobs run after the writes (at 650 documents or so, then again once doubled); they
    // are done when the model has seen more than half of the documents, so none is due.
    const settled = (e?: { docs?: number }): boolean => (e?.docs ?? 0) * RETRAIN_GROWTH > data.docs.length;
    let embedder: { trained: boolean; docs?: number; rank?: number } | undefined;
    for (let waited = 0; waited < 100_000 && !settled(embedder); waited += 250) {
      await new Promise((r) => setTimeout(r, 250));
      embedder = (await json(await fetch(`${base}/cran`))).index.stats.embedder;
    }
    expect(embedder).toMatchObject({ trained: true, rank: 128 });
    expect(settled(embedder)).toBe(true);

    const keyword = await meanNdcg({});
    const hybrid = await meanNdcg({ mode: 'hybrid' });
    expect(keyword).toBeGreaterThan(0.36);
    expect(hybrid).toBeGreaterThanOrEqual(keyword);

    const { hits } = await search({ q: data.queries[0]!.text, mode: 'hybrid', explain: true });
    for (const hit of hits) {
      const e = hit.explain;
      expect(e).toMatchObject({
        fusion: 'convex',
        convexScore: hit.score,
        weights: { keyword: 0.7, semantic: expect.closeTo(0.3, 12) },
        semanticRatio: { value: 0.3, source: 'default', embedder: 'corpus-lsa-v1', reason: expect.any(String) },
      });
      for (const side of [e.keyword, e.semantic]) {
        if (side === null) continue;
        expect(side).toEqual({
          rank: expect.any(Number),
          score: expect.any(Number),
          weight: expect.any(Number),
          normalized: expect.any(Number),
          contribution: expect.any(Number),
        });
        expect(side.normalized).toBeGreaterThanOrEqual(0);
        expect(side.normalized).toBeLessThanOrEqual(1);
      }
      expect((e.keyword?.contribution ?? 0) + (e.semantic?.contribution ?? 0)).toBeCloseTo(hit.score, 9);
    }
    const given = await search({ q: data.queries[0]!.text, mode: 'hybrid', semanticRatio: 0.5, explain: true });
    expect(given.hits[0]!.explain.semanticRatio).toEqual({ value: 0.5, source: 'request', embedder: 'corpus-lsa-v1' });
  }, 180_000);
});
