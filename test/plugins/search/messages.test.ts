import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, json, postJson, type TestApp } from '../../helpers/app.js';

describe('error messages that say what is wrong', () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await createTestApp({ listeners: [{ name: 'search', port: 0, plugins: ['search'] }], plugins: { search: {} } });
    base = `${t.url()}/v1/indexes`;
    await postJson(base, { name: 'shop', mappings: { title: { type: 'text' }, price: { type: 'number' }, at: { type: 'geo_point' } } });
  });
  afterAll(() => t.stop());

  it('refuses an unknown sort direction or field with invalid_sort instead of ignoring it', async () => {
    const up = await postJson(`${base}/shop/search`, { q: '', sort: ['price:up'] });
    expect(up.status).toBe(400);
    expect((await json(up)).error).toMatchObject({ code: 'invalid_sort', details: { path: 'sort.0', sort: 'price:up' } });
    const unknown = await json(await postJson(`${base}/shop/search`, { q: '', sort: ['price:desc', 'colour'] }));
    expect(unknown.error).toMatchObject({ code: 'invalid_sort', details: { path: 'sort.1' } });
    expect((await postJson(`${base}/shop/search`, { q: '', sort: ['price:desc', 'id', '_score:desc', { title: 'asc' }] })).status).toBe(200);
  });

  it('names the largest radius when a radius is too large', async () => {
    const res = await json(await postJson(`${base}/shop/search`, { mode: 'geo', geo: { lat: 0, lon: 0, radius: '1e9km' } }));
    expect(res.error.code).toBe('invalid_geo_query');
    expect(res.error.message).toContain('20037509 m');
  });

  it('never prints an empty path or "null null"', async () => {
    const unknownKey = await json(await postJson(base, { name: 'x', bogus: 1 }));
    expect(unknownKey.error.message).toBe('Invalid index definition: Unrecognized key: "bogus"');
    const nullBody = await json(await postJson(base, null));
    expect(nullBody.error.message).not.toMatch(/: :/);
    const doc = await json(await postJson(`${base}/shop/documents`, [{ id: 'a', price: null }, null]));
    for (const e of doc.errors) expect(e.message).not.toContain('null null');
  });

  it('refuses a query with too many phrases or clauses with query_too_complex', async () => {
    const phrases = await postJson(`${base}/shop/search`, { q: Array(65).fill('"alpha beta"').join(' ') });
    expect(phrases.status).toBe(400);
    expect((await json(phrases)).error).toMatchObject({ code: 'query_too_complex', details: { phrases: 65, maxPhrases: 64 } });
    const clauses = await postJson(`${base}/shop/search`, { q: Array.from({ length: 1100 }, (_, i) => `w${i}`).join(' ') });
    expect((await json(clauses)).error.code).toBe('query_too_complex');
    expect((await postJson(`${base}/shop/search`, { q: Array(64).fill('"alpha beta"').join(' ') })).status).toBe(200);
  });
});
