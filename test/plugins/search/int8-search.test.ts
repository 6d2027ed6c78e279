import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, json, postJson, type TestApp } from '../../helpers/app.js';

function gaussian(seed: number): () => number {
  let a = seed >>> 0;
  const uniform = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) + 1) / 4294967297;
  };
  return () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
}

const DIMS = 64;
const next = gaussian(9);
const docs = Array.from({ length: 3000 }, (_, i) => ({ id: `d${i}`, _vector: Array.from({ length: DIMS }, next) }));
const queries = Array.from({ length: 40 }, () => Array.from({ length: DIMS }, next));
const dot = (a: number[], b: number[]): number => a.reduce((s, x, i) => s + x * b[i]!, 0);
const cosine = (a: number[], b: number[]): number => dot(a, b) / Math.sqrt(dot(a, a) * dot(b, b));

describe('int8 vector quantization', () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await createTestApp({ listeners: [{ name: 'search', port: 0, plugins: ['search'] }], plugins: { search: {} } });
    base = `${t.url()}/v1/indexes`;
    await postJson(base, { name: 'q8', settings: { vectorDimensions: DIMS, vectorMetric: 'cosine', vectorQuantization: 'int8' } });
    await postJson(base, { name: 'f32', settings: { vectorDimensions: DIMS, vectorMetric: 'cosine' } });
    for (const name of ['q8', 'f32']) expect((await json(await postJson(`${base}/${name}/documents`, docs))).errors).toEqual([]);
  });
  afterAll(() => t.stop());

  const recall = async (index: string): Promise<number> => {
    let hits = 0;
    for (const q of queries) {
      const exact = new Set(
        docs
          .map((d) => ({ id: d.id, s: cosine(q, d._vector) }))
          .sort((a, b) => b.s - a.s)
          .slice(0, 10)
          .map((d) => d.id),
      );
      const res = await json(await postJson(`${base}/${index}/search`, { mode: 'semantic', vector: q, size: 10, select: ['id'] }));
      hits += res.hits.filter((h: { id: string }) => exact.has(h.id)).length;
    }
    return hits / (queries.length * 10);
  };

  it('reaches recall@10 of at least 0.98 against exact search, with scores rescored in f32', async () => {
    expect(await recall('q8')).toBeGreaterThanOrEqual(0.98);
    const res = await json(await postJson(`${base}/q8/search`, { mode: 'semantic', vector: queries[0], size: 1, select: ['id'] }));
    const doc = docs.find((d) => d.id === res.hits[0].id)!;
    expect(res.hits[0].score).toBeCloseTo(cosine(queries[0]!, doc._vector), 4);
  });

  it('switches an index to int8 with PATCH, re-indexing it', async () => {
    const patched = await json(
      await fetch(`${base}/f32`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ settings: { vectorQuantization: 'int8' } }),
      }),
    );
    expect(patched.index.settings.vectorQuantization).toBe('int8');
    expect(patched.reindexed).toBe(true);
    expect(await recall('f32')).toBeGreaterThanOrEqual(0.98);
  });
});
