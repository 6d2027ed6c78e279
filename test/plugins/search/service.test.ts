import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, json, postJson, type TestApp } from '../../helpers/app.js';

describe('the search service (SEARCH_SERVICE), as a dependent plugin uses it', () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await createTestApp({
      listeners: [{ name: 'main', port: 0, plugins: ['search-consumer', 'search'] }],
      plugins: { search: {}, 'search-consumer': { module: './plugins/search-consumer/index.js' } },
    });
    base = `${t.url()}/consumer`;
  });
  afterAll(() => t.stop());

  it('ensures an index once per tenant and keeps tenants apart', async () => {
    const spec = { name: 'pages', mappings: { title: { type: 'text' }, url: { type: 'keyword' } } };
    const first = await json(await postJson(`${base}/acme/indexes`, spec));
    expect(first.index).toMatchObject({
      name: 'pages',
      docCount: 0,
      mappings: { title: { type: 'text', analyzer: 'standard', index: true }, url: { type: 'keyword', index: true } },
    });
    const again = await json(await postJson(`${base}/acme/indexes`, { ...spec, mappings: { other: { type: 'text' } } }));
    expect(again.index.createdAt).toBe(first.index.createdAt);
    expect(Object.keys(again.index.mappings)).toEqual(['title', 'url']);
    expect((await json(await fetch(`${base}/acme/indexes`))).names).toEqual(['pages']);
    expect((await json(await fetch(`${base}/globex/indexes`))).names).toEqual([]);
    // The HTTP API acts as tenant "default" on a listener with auth off: it does not see acme's index.
    expect((await json(await fetch(`${t.url()}/v1/indexes`))).indexes).toEqual([]);
  });

  it("applies a batched writer's upserts and deletes in order, reporting positions across batches", async () => {
    const ops = [
      { upsert: { id: 'a', title: 'alpha page', url: '/a' } },
      { upsert: { id: 'b', title: 'beta page', url: '/b' } },
      { upsert: { id: 'bad', title: { not: 'text' }, url: '/bad' } },
      { delete: 'a' },
      { upsert: { id: 'c', title: 'gamma page', url: '/c' } },
      { delete: 'missing' },
    ];
    const result = await json(await postJson(`${base}/acme/pages/write`, { batchDocs: 2, ops }));
    expect(result).toEqual({
      ok: true,
      written: { indexed: 3, ids: ['a', 'b', 'c'], errors: [{ position: 2, id: 'bad', code: 'validation_failed', message: expect.any(String) }] },
      deleted: 1,
    });
    const found = await json(await postJson(`${base}/acme/pages/search`, { q: 'page', size: 10 }));
    expect(found.hits.map((h: { id: string }) => h.id).sort()).toEqual(['b', 'c']);
    expect(found).toMatchObject({ ok: true, total: 2, tookMs: expect.any(Number) });
    expect((await json(await fetch(`${base}/acme/pages/documents/b`))).document).toEqual({ id: 'b', title: 'beta page', url: '/b' });
  });

  it('validates a search body like the HTTP route does', async () => {
    const bad = await postJson(`${base}/acme/pages/search`, { q: 'x', size: 5000 });
    expect(bad.status).toBe(400);
    expect((await json(bad)).error.code).toBe('validation_failed');
  });

  it('tells subscribers what changed: created, written (ids upserted and deleted), dropped', async () => {
    expect((await json(await fetch(`${base}/acme/pages`, { method: 'DELETE' }))).dropped).toBe(true);
    expect((await json(await fetch(`${base}/acme/pages`, { method: 'DELETE' }))).dropped).toBe(false);
    const { events } = await json(await fetch(`${base}/events`));
    expect(events).toEqual([
      { event: 'index.created', tenant: 'acme', index: 'pages' },
      { event: 'documents.written', tenant: 'acme', index: 'pages', upserted: ['a', 'b'], deleted: [] },
      { event: 'documents.written', tenant: 'acme', index: 'pages', upserted: [], deleted: ['a'] },
      { event: 'documents.written', tenant: 'acme', index: 'pages', upserted: ['c'], deleted: [] },
      { event: 'index.dropped', tenant: 'acme', index: 'pages' },
    ]);
  });
});
