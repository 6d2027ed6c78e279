import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, json, type TestApp } from '../../helpers/app.js';

const post = (url: string, body: unknown, type = 'application/json'): Promise<Response> =>
  fetch(url, { method: 'POST', headers: { 'content-type': type }, body: typeof body === 'string' ? body : JSON.stringify(body) });

const books = [
  {
    id: 'b1',
    title: 'The Old Man and the Sea',
    body: 'An old fisherman fights a giant marlin far out in the Gulf Stream.',
    genre: 'fiction',
    year: 1952,
    inPrint: true,
  },
  { id: 'b2', title: 'Moby-Dick', body: 'Captain Ahab hunts the white whale across the sea; the whale wins.', genre: 'fiction', year: 1851, inPrint: true },
  {
    id: 'b3',
    title: 'The Sea Around Us',
    body: 'A natural history of the ocean: tides, currents and the sea floor.',
    genre: 'science',
    year: 1951,
    inPrint: false,
  },
  {
    id: 'b4',
    title: 'Cod',
    body: 'A biography of the fish that changed the world, and of the fishermen who chased it.',
    genre: 'history',
    year: 1997,
    inPrint: true,
  },
  { id: 'b5', title: 'Café society', body: 'Coffee houses, newspapers and the birth of the public sphere.', genre: 'history', year: 2005 },
];

describe('search plugin: indexes, documents, keyword search', () => {
  let t: TestApp;
  let base: string;

  beforeAll(async () => {
    t = await createTestApp({
      listeners: [{ name: 'search', port: 0, plugins: ['search'] }],
      plugins: { search: {} },
      kernels: { threads: 1 },
    });
    base = `${t.url()}/v1/indexes`;
    const created = await post(base, {
      name: 'books',
      mappings: {
        title: { type: 'text', analyzer: 'english' },
        body: { type: 'text', analyzer: 'english' },
        genre: { type: 'keyword' },
        year: { type: 'number' },
        inPrint: { type: 'boolean' },
      },
    });
    expect(created.status).toBe(200);
    const indexed = await json(await post(`${base}/books/documents`, books));
    expect(indexed).toEqual({ ok: true, indexed: 5, ids: ['b1', 'b2', 'b3', 'b4', 'b5'], errors: [] });
  });
  afterAll(() => t.stop());

  const search = async (body: Record<string, unknown>, index = 'books'): Promise<any> => json(await post(`${base}/${index}/search`, body));
  const ids = (result: { hits: Array<{ id: string }> }): string[] => result.hits.map((h) => h.id);

  it('creates an index and lists it with docCount, timestamps and statistics', async () => {
    const list = await json(await fetch(base));
    expect(list.ok).toBe(true);
    const books = list.indexes.find((i: { name: string }) => i.name === 'books');
    expect(books).toMatchObject({ name: 'books', docCount: 5, stats: { segments: 1, deletedDocs: 0, fields: 5 } });
    expect(books.settings).toMatchObject({ defaultOperator: 'OR', k1: 1.2, b: 0.75, enableKnowledgeGraph: true });
    expect(Date.parse(books.createdAt)).not.toBeNaN();
    expect(Date.parse(books.updatedAt)).toBeGreaterThanOrEqual(Date.parse(books.createdAt));
  });

  it('answers index_exists, invalid_index_name and invalid_mapping', async () => {
    expect((await json(await post(base, { name: 'books' }))).error.code).toBe('index_exists');
    const bad = await post(base, { name: 'Bad Name' });
    expect(bad.status).toBe(400);
    expect((await json(bad)).error.code).toBe('invalid_index_name');
    const mapping = await json(await post(base, { name: 'x1', mappings: { title: { type: 'txt' } } }));
    expect(mapping.error.code).toBe('invalid_mapping');
  });

  it('returns exactly {ok, total, tookMs, hits} ranked by BM25, with highlights', async () => {
    const result = await search({ q: 'sea whale' });
    expect(Object.keys(result).sort()).toEqual(['hits', 'ok', 'tookMs', 'total']);
    expect(ids(result)[0]).toBe('b2');
    expect(result.total).toBe(3);
    expect(result.hits[0].score).toBeGreaterThan(result.hits[1].score);
    expect(Object.keys(result.hits[0]).sort()).toEqual(['highlight', 'id', 'score', 'source']);
    expect(result.hits[0].highlight.body[0]).toContain('<mark>whale</mark>');
  });

  it('applies the english analyzer: stems and folds diacritics', async () => {
    expect(ids(await search({ q: 'fishermen' }))).toEqual(expect.arrayContaining(['b4']));
    expect(ids(await search({ q: 'cafe' }))).toEqual(['b5']);
  });

  it('supports AND, OR, NOT, +/- and natural-language operators', async () => {
    expect(ids(await search({ q: 'sea AND whale' }))).toEqual(['b2']);
    expect(ids(await search({ q: 'sea NOT whale' })).sort()).toEqual(['b1', 'b3']);
    expect(ids(await search({ q: '+sea -old' })).sort()).toEqual(['b2', 'b3']);
    expect(ids(await search({ q: 'whale or cod' })).sort()).toEqual(['b2', 'b4']);
    expect(ids(await search({ q: 'sea but not whale' })).sort()).toEqual(['b1', 'b3']);
    expect(ids(await search({ q: 'sea whale', operator: 'AND' }))).toEqual(['b2']);
  });

  it('matches quoted phrases by position', async () => {
    expect(ids(await search({ q: '"white whale"' }))).toEqual(['b2']);
    expect(ids(await search({ q: '"whale white"' }))).toEqual([]);
  });

  it('applies minimumShouldMatch', async () => {
    expect(ids(await search({ q: 'sea whale ocean', minimumShouldMatch: '100%' }))).toEqual([]);
    // Percentages round down, as in Lucene: 60% of 3 clauses is 1, 67% is 2.
    expect(ids(await search({ q: 'sea whale ocean', minimumShouldMatch: '60%' })).sort()).toEqual(['b1', 'b2', 'b3']);
    expect(ids(await search({ q: 'sea whale ocean', minimumShouldMatch: '67%' })).sort()).toEqual(['b2', 'b3']);
  });

  it('filters on keyword, number and boolean fields before ranking', async () => {
    expect(ids(await search({ q: 'sea', filter: { eq: { genre: 'fiction' } } })).sort()).toEqual(['b1', 'b2']);
    expect(ids(await search({ filter: { range: { year: { gte: 1950, lt: 2000 } } } })).sort()).toEqual(['b1', 'b3', 'b4']);
    expect(ids(await search({ filter: { and: [{ eq: { inPrint: true } }, { not: { eq: { genre: 'fiction' } } }] } }))).toEqual(['b4']);
  });

  it('pages with size and from, and sorts by a field', async () => {
    const all = await search({ size: 10, sort: [{ year: 'asc' }] });
    expect(ids(all)).toEqual(['b2', 'b3', 'b1', 'b4', 'b5']);
    const page = await search({ size: 2, from: 2, sort: [{ year: 'asc' }] });
    expect(ids(page)).toEqual(['b1', 'b4']);
    expect(page.total).toBe(5);
    expect((await json(await post(`${base}/books/search`, { size: 1001 }))).error.code).toBe('validation_failed');
  });

  it('shapes sources with projection and select', async () => {
    const result = await search({ q: 'cod', select: ['title'] });
    // `id` stays unless projected out with 0.
    expect(result.hits[0].source).toEqual({ title: 'Cod', id: 'b4' });
    const mixed = await post(`${base}/books/search`, { q: 'nothing-matches-this', projection: { body: 0, title: 1 } });
    expect(mixed.status).toBe(400);
    expect((await json(mixed)).error.code).toBe('invalid_projection');
    const excluded = await search({ q: 'cod', projection: { body: 0, year: 0 } });
    expect(Object.keys(excluded.hits[0].source).sort()).toEqual(['genre', 'id', 'inPrint', 'title']);
  });

  it('upserts by id, replacing the old terms with no stale match', async () => {
    await post(`${base}/books/documents`, [{ id: 'b4', title: 'Salt', body: 'A world history of salt.', genre: 'history', year: 2002 }]);
    expect(ids(await search({ q: 'cod' }))).toEqual([]);
    expect(ids(await search({ q: 'salt' }))).toEqual(['b4']);
    expect((await json(await fetch(`${base}/books/documents/b4`))).document.title).toBe('Salt');
    const list = await json(await fetch(base));
    expect(list.indexes.find((i: { name: string }) => i.name === 'books').docCount).toBe(5);
  });

  it('reports one bad document per position without sinking the batch', async () => {
    const result = await json(await post(`${base}/books/documents`, [{ id: 'ok1', title: 'Fine' }, { id: 'bad', year: 'nineteen' }, 'not an object']));
    expect(result.indexed).toBe(1);
    expect(result.ids).toEqual(['ok1']);
    expect(result.errors.map((e: { position: number; code: string }) => [e.position, e.code])).toEqual([
      [1, 'validation_failed'],
      [2, 'invalid_document'],
    ]);
    expect(result.errors[0].message).toContain('year');
  });

  it('accepts NDJSON and {documents: [...]}, and generates missing ids', async () => {
    const nd = await json(await post(`${base}/books/documents`, '{"id":"n1","title":"Line one"}\n{"title":"No id"}\n', 'application/x-ndjson'));
    expect(nd.indexed).toBe(2);
    expect(nd.ids[0]).toBe('n1');
    expect(nd.ids[1]).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const wrapped = await json(await post(`${base}/books/documents`, { documents: [{ id: 7, title: 'Numbered' }] }));
    expect(wrapped.ids).toEqual(['7']);
  });

  it('deletes by id and by filter', async () => {
    const del = await fetch(`${base}/books/documents/n1`, { method: 'DELETE' });
    expect(await json(del)).toEqual({ ok: true, deleted: 1 });
    const again = await fetch(`${base}/books/documents/n1`, { method: 'DELETE' });
    expect(again.status).toBe(404);
    expect((await json(again)).error.code).toBe('document_not_found');
    const byFilter = await json(await post(`${base}/books/documents/delete`, { filter: { eq: { genre: 'history' } } }));
    expect(byFilter).toEqual({ ok: true, deleted: 2 });
    expect(ids(await search({ q: 'salt' }))).toEqual([]);
    expect(await json(await post(`${base}/books/documents/delete`, { ids: ['7', 'ok1', 'nope'] }))).toEqual({ ok: true, deleted: 2 });
  });

  it('answers index_not_found for an unknown index and rejects a mapping type change', async () => {
    const res = await post(`${base}/nope/search`, { q: 'x' });
    expect(res.status).toBe(404);
    expect((await json(res)).error.code).toBe('index_not_found');
    const conflict = await fetch(`${base}/books`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ mappings: { year: { type: 'keyword' } } }),
    });
    expect(conflict.status).toBe(409);
    expect((await json(conflict)).error.code).toBe('mapping_conflict');
  });

  it("re-indexes when PATCH changes a field's analyzer, and adds new fields to stored documents", async () => {
    await post(base, { name: 'patchme', mappings: { text: { type: 'text', analyzer: 'standard' } } });
    await post(`${base}/patchme/documents`, [{ id: 'p1', text: 'The fishermen were running', lang: 'en' }]);
    expect(ids(await search({ q: 'run' }, 'patchme'))).toEqual([]);
    const patch = await fetch(`${base}/patchme`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ mappings: { text: { type: 'text', analyzer: 'english' }, lang: { type: 'keyword' } } }),
    });
    const body = await json(patch);
    expect(body.reindexed).toBe(true);
    expect(body.index.mappings.text).toEqual({ type: 'text', analyzer: 'english', index: true });
    expect(ids(await search({ q: 'run' }, 'patchme'))).toEqual(['p1']);
    expect(ids(await search({ filter: { eq: { lang: 'en' } } }, 'patchme'))).toEqual(['p1']);
  });

  it('keeps pages disjoint and in one order across from/size', async () => {
    const all = ids(await search({ q: 'sea', size: 100 }));
    const pages = [...ids(await search({ q: 'sea', size: 1, from: 0 })), ...ids(await search({ q: 'sea', size: 1, from: 1 }))];
    expect(pages).toEqual(all.slice(0, 2));
  });

  it('keeps scores positive while replaced versions still sit in unmerged segments', async () => {
    await post(base, { name: 'scores', mappings: { text: { type: 'text' } } });
    for (let i = 0; i < 4; i++) await post(`${base}/scores/documents`, [{ id: 'same', text: 'rewritten words' }]);
    const result = await search({ q: 'rewritten' }, 'scores');
    expect(result.total).toBe(1);
    expect(result.hits[0].score).toBeGreaterThan(0);
    expect(ids(await search({ q: 'rewritten words', minimumShouldMatch: 2 }, 'scores'))).toEqual(['same']);
  });

  it("answers the documents route's bad bodies with the error shape: invalid_json, 415 and validation_failed", async () => {
    const broken = await post(`${base}/books/documents`, '[{"id": "x",');
    expect(broken.status).toBe(400);
    expect((await json(broken)).error.code).toBe('invalid_json');
    const badLine = await post(`${base}/books/documents`, '{"id":"ok"}\n{not json}\n', 'application/x-ndjson');
    expect(badLine.status).toBe(400);
    expect((await json(badLine)).error).toMatchObject({ code: 'invalid_json', details: { line: 2 } });
    const wrongType = await post(`${base}/books/documents`, 'id,title', 'text/csv');
    expect(wrongType.status).toBe(415);
    expect((await json(wrongType)).error.details.accepted).toEqual(['application/json', 'application/x-ndjson']);
    const notDocs = await post(`${base}/books/documents`, { doc: {} });
    expect(notDocs.status).toBe(400);
    expect((await json(notDocs)).error).toMatchObject({ code: 'validation_failed', details: { issues: [{ path: 'body' }] } });
    expect((await fetch(`${base}/books/documents/ok`)).status).toBe(404);
  });
});
