import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareRows, rescaleForCosine } from '../../../plugins/search/index/vector-range.js';
import { createTestApp, json, postJson, type TestApp } from '../../helpers/app.js';

const cosine = (a: number[], b: number[]): number => {
  // In float64 with scaling: the reference the engine must agree with.
  const s = Math.max(...a.map(Math.abs)) * Math.max(...b.map(Math.abs));
  const dot = a.reduce((sum, x, i) => sum + (x / Math.max(...a.map(Math.abs))) * (b[i]! / Math.max(...b.map(Math.abs))), 0);
  const na = Math.hypot(...a.map((x) => x / Math.max(...a.map(Math.abs))));
  const nb = Math.hypot(...b.map((x) => x / Math.max(...b.map(Math.abs))));
  return s === 0 ? 0 : dot / (na * nb);
};

describe('vectors at the edges of float32', () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await createTestApp({ listeners: [{ name: 'search', port: 0, plugins: ['search'] }], plugins: { search: {} } });
    base = `${t.url()}/v1/indexes`;
    await postJson(base, { name: 'cos', mappings: { title: { type: 'text' } }, settings: { vectorDimensions: 2 } });
    await postJson(base, { name: 'dot', mappings: { title: { type: 'text' } }, settings: { vectorDimensions: 2, vectorMetric: 'dot_product' } });
  });
  afterAll(() => t.stop());

  it('refuses a component beyond float32 per document, stores nothing of it, and still restarts', async () => {
    const res = await json(
      await postJson(`${base}/cos/documents`, [
        { id: 'ok', title: 'fine', _vector: [1, 0] },
        { id: 'big', title: 'too big', _vector: [1e39, 0] },
      ]),
    );
    expect(res).toMatchObject({ ok: true, indexed: 1, ids: ['ok'], errors: [{ position: 1, id: 'big', code: 'invalid_vector' }] });
    expect(res.errors[0].message).toContain('float32');
    expect((await fetch(`${base}/cos/documents/big`)).status).toBe(404);
    const dot = await json(await postJson(`${base}/dot/documents`, [{ id: 'd', _vector: [1e17, 0] }]));
    expect(dot.errors).toMatchObject([{ code: 'invalid_vector' }]);
  });

  it('scores large and tiny finite vectors by cosine correctly, with total agreeing with hits', async () => {
    const docs = { huge: [3e38, 3e38], tilted: [3e38, 1e38], tiny: [1e-40, 2e-40], unit: [1, 0] };
    await postJson(
      `${base}/cos/documents`,
      Object.entries(docs).map(([id, v]) => ({ id, title: id, _vector: v })),
    );
    const query = [3e38, 1e38];
    const found = await json(await postJson(`${base}/cos/search`, { mode: 'semantic', vector: query, size: 10, filter: { in: { id: Object.keys(docs) } } }));
    expect(found.total).toBe(4);
    expect(found.hits).toHaveLength(4);
    for (const hit of found.hits) expect(hit.score).toBeCloseTo(cosine(query, docs[hit.id as keyof typeof docs]), 5);
    expect(found.hits[0].id).toBe('tilted');
  });

  it('answers a hybrid search of size 0 with the total and no hits', async () => {
    const res = await json(await postJson(`${base}/cos/search`, { mode: 'hybrid', q: 'fine', vector: [1, 0], size: 0 }));
    expect(res).toMatchObject({ ok: true, hits: [] });
    expect(res.total).toBeGreaterThan(0);
  });

  it('answers 400 invalid_vector for a query vector beyond float32', async () => {
    const res = await postJson(`${base}/cos/search`, { mode: 'semantic', vector: [1e39, 0] });
    expect(res.status).toBe(400);
    expect((await json(res)).error.code).toBe('invalid_vector');
    const hybrid = await postJson(`${base}/cos/search`, { mode: 'hybrid', q: 'fine', vector: [0, -1e39] });
    expect(hybrid.status).toBe(400);
  });

  it('loads rows stored with non-finite values by zeroing them, without touching the stored array', () => {
    const stored = new Float32Array([1, 2, Infinity, 0, 3e38, 3e38]);
    const { data, zeroed } = prepareRows(stored, 2, 'cosine');
    expect(zeroed).toBe(1);
    expect(Array.from(data)).toEqual([1, 2, 0, 0, 1, 1]);
    expect(stored[2]).toBe(Infinity);
    expect(Array.from(rescaleForCosine([1e-30, -2e-30]))).toEqual([0.5, -1]);
  });
});
