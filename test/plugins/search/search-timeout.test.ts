import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, json, postJson, type TestApp } from '../../helpers/app.js';

describe('search time budget', () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await createTestApp({ listeners: [{ name: 'search', port: 0, plugins: ['search'] }], plugins: { search: { options: { searchTimeoutMs: 1 } } } });
    base = `${t.url()}/v1/indexes`;
    await postJson(base, { name: 'many', mappings: { title: { type: 'text' }, tag: { type: 'keyword' } } });
    const docs = Array.from({ length: 30_000 }, (_, i) => ({ id: String(i), title: `word${i % 97} common`, tag: `t${(i * 7919) % 30_000}` }));
    expect((await json(await postJson(`${base}/many/documents`, docs))).indexed).toBe(30_000);
  });
  afterAll(() => t.stop());

  it('stops a search that runs past searchTimeoutMs with 503 search_timeout', async () => {
    const res = await postJson(`${base}/many/search`, { q: 'common', size: 1000, sort: ['tag:desc'], highlight: true });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect((await json(res)).error).toMatchObject({ code: 'search_timeout', details: { budgetMs: 1 } });
    // The server is fine afterwards.
    expect((await fetch(`${t.url()}/health`)).status).toBe(200);
  });
});
