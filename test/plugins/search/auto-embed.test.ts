import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embedText } from '../../../plugins/search/embedders/hashed-embedder.js';
import { createTestApp, json, postJson, type TestApp } from '../../helpers/app.js';

const cosine = (a: Float32Array, b: Float32Array): number => a.reduce((s, x, i) => s + x * b[i]!, 0);

describe('hashed-ngrams-v1 embedder', () => {
  it('is deterministic and unit length', () => {
    const a = embedText('Aerodynamic heating of swept wings', 128);
    expect([...a]).toEqual([...embedText('Aerodynamic heating of swept wings', 128)]);
    expect(cosine(a, a)).toBeCloseTo(1, 5);
    expect([...embedText('', 16)]).toEqual(new Array(16).fill(0));
  });

  it('puts texts that share words and word pieces closer than unrelated ones', () => {
    const q = embedText('aerodynamics of the wing', 256);
    const near = embedText('aerodynamic wings at high speed', 256);
    const far = embedText('a recipe for tomato soup', 256);
    expect(cosine(q, near)).toBeGreaterThan(cosine(q, far) + 0.2);
  });
});

describe('autoEmbed', () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await createTestApp({ listeners: [{ name: 'search', port: 0, plugins: ['search'] }], plugins: { search: {} } });
    base = `${t.url()}/v1/indexes`;
    const created = await postJson(base, {
      name: 'auto',
      mappings: { title: { type: 'text' }, body: { type: 'text' } },
      settings: { vectorDimensions: 256, autoEmbed: true },
    });
    expect(created.status).toBe(200);
    const res = await json(
      await postJson(`${base}/auto/documents`, [
        { id: 'aero', title: 'Aerodynamic heating', body: 'Heating of swept wings at supersonic speed.' },
        { id: 'layer', title: 'Boundary layers', body: 'Transition of the laminar boundary layer on a flat plate.' },
        { id: 'soup', title: 'Tomato soup', body: 'A recipe with basil and garlic.' },
        { id: 'own', title: 'Has its own vector', _vector: Array.from({ length: 256 }, (_, i) => (i === 0 ? 1 : 0)) },
      ]),
    );
    expect(res.errors).toEqual([]);
  });
  afterAll(() => t.stop());

  it('embeds documents on insert and q at query time the same way', async () => {
    const result = await json(await postJson(`${base}/auto/search`, { mode: 'semantic', q: 'aerodynamics of wings', size: 2 }));
    expect(result.hits[0].id).toBe('aero');
    expect(result.total).toBe(4);
  });

  it("keeps a document's own _vector instead of embedding it", async () => {
    const own = await json(
      await postJson(`${base}/auto/search`, { mode: 'semantic', vector: Array.from({ length: 256 }, (_, i) => (i === 0 ? 1 : 0)), size: 1 }),
    );
    expect(own.hits[0]).toMatchObject({ id: 'own', score: expect.closeTo(1, 5) });
  });

  it('runs hybrid search from q alone', async () => {
    const result = await json(await postJson(`${base}/auto/search`, { mode: 'hybrid', q: 'boundary layer transition', size: 3, explain: true }));
    expect(result.hits[0].id).toBe('layer');
    expect(result.hits[0].explain.keyword.rank).toBe(1);
    expect(result.hits[0].explain.semantic.rank).toBe(1);
  });

  it("embeds into the built-in embedder's own 384 dimensions by cosine when vectorDimensions and vectorMetric are left out", async () => {
    const res = await postJson(base, { name: 'defaults', mappings: { title: { type: 'text' } }, settings: { autoEmbed: true } });
    expect(res.status).toBe(200);
    expect((await json(res)).index.settings).toMatchObject({ autoEmbed: true, vectorDimensions: 384, vectorMetric: 'cosine' });
    expect((await json(await postJson(`${base}/defaults/documents`, [{ id: 'w', title: 'swept wings' }]))).errors).toEqual([]);
    const found = await json(await postJson(`${base}/defaults/search`, { mode: 'semantic', q: 'swept wing', size: 1 }));
    expect(found.hits[0]).toMatchObject({ id: 'w', score: expect.any(Number) });
    // A metric the user gives is kept.
    const dot = await postJson(base, { name: 'dot', settings: { autoEmbed: true, vectorMetric: 'dot_product' } });
    expect((await json(dot)).index.settings).toMatchObject({ vectorDimensions: 384, vectorMetric: 'dot_product' });
  });

  it('fills the dimension when a PATCH turns autoEmbed on, and re-embeds the documents', async () => {
    expect((await postJson(base, { name: 'later', mappings: { title: { type: 'text' } } })).status).toBe(200);
    expect((await json(await postJson(`${base}/later/documents`, [{ id: 'x', title: 'boundary layer' }]))).errors).toEqual([]);
    const patched = await fetch(`${base}/later`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ settings: { autoEmbed: true } }),
    });
    expect(patched.status).toBe(200);
    const body = await json(patched);
    expect(body.index.settings).toMatchObject({ autoEmbed: true, vectorDimensions: 384, vectorMetric: 'cosine' });
    const found = await json(await postJson(`${base}/later/search`, { mode: 'semantic', q: 'boundary layers', size: 1 }));
    expect(found.hits.map((h: { id: string }) => h.id)).toEqual(['x']);
  });
});
