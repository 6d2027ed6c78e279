import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, json, postJson, type TestApp } from '../../helpers/app.js';
import { prng } from './support/prng.js';

// Titles (a text field) sort from a column read once from the sources; long titles (over the
// column's 256 characters) are read again when sorted. The order must be the one
// the stored values give, whichever path served each document.
const rand = prng(99);
const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel'];
const pick = (): string => words[Math.floor(rand() * words.length)]!;
interface Doc {
  id: string;
  title?: string | string[];
  grp: string;
  body: string;
}
const docs: Doc[] = Array.from({ length: 600 }, (_, i) => {
  const doc: Doc = { id: `d${String(i).padStart(3, '0')}`, grp: i < 40 ? 'few' : 'many', body: i % 3 === 0 ? 'needle hay' : 'hay' };
  if (i % 10 !== 7) doc.title = i % 50 === 5 ? `${pick()} ${'z'.repeat(300)} ${i}` : `${pick()} ${pick()} ${i % 13}`;
  if (i % 25 === 3) doc.title = [`${pick()} first`, 'aaa second'];
  return doc;
});
const deleted = new Set(['d010', 'd011', 'd333', 'd599']);

function expected(field: 'title', order: 'asc' | 'desc', keep: (d: Doc) => boolean): string[] {
  const key = (d: Doc): string | undefined => {
    const v = d[field];
    return Array.isArray(v) ? v[0] : v;
  };
  return docs
    .filter((d) => !deleted.has(d.id) && keep(d))
    .sort((a, b) => {
      const x = key(a);
      const y = key(b);
      if (x !== y) {
        if (x === undefined) return 1;
        if (y === undefined) return -1;
        const cmp = x < y ? -1 : 1;
        return order === 'asc' ? cmp : -cmp;
      }
      return a.id < b.id ? -1 : 1; // equal scores (a sort query's) fall back to the id
    })
    .map((d) => d.id);
}

describe('sorting by fields without a column of their own', () => {
  let t: TestApp;
  let base: string;
  const search = async (body: Record<string, unknown>): Promise<string[]> => {
    const res = await json(await postJson(`${base}/s/search`, { select: ['id'], size: 1000, ...body }));
    expect(res.ok, JSON.stringify(res)).toBe(true);
    return res.hits.map((h: { id: string }) => h.id);
  };

  beforeAll(async () => {
    t = await createTestApp({ listeners: [{ name: 'search', port: 0, plugins: ['search'] }], plugins: { search: {} } });
    base = `${t.url()}/v1/indexes`;
    expect((await postJson(base, { name: 's', mappings: { title: { type: 'text' }, body: { type: 'text' }, grp: { type: 'keyword' } } })).status).toBe(200);
    // Three writes, three segments; then deletes in two of them.
    for (const part of [docs.slice(0, 200), docs.slice(200, 450), docs.slice(450)]) {
      expect((await json(await postJson(`${base}/s/documents`, part))).errors).toEqual([]);
    }
    expect((await json(await postJson(`${base}/s/documents/delete`, { ids: [...deleted] }))).deleted).toBe(4);
  });
  afterAll(async () => {
    await t.stop();
  });

  it('sorts a small match set by reading its hits (no column), then the whole index from the columns, in the same order', async () => {
    const few = (d: Doc): boolean => d.body === 'needle hay' && d.grp === 'few';
    for (const order of ['asc', 'desc'] as const) {
      // Two filtered searches before and after the whole-index sort that builds the columns.
      const small = { q: 'needle', filter: { eq: { grp: 'few' } }, sort: [`title:${order}`] };
      const before = await search(small);
      expect(before).toEqual(expected('title', order, few));
      expect(await search({ sort: [`title:${order}`] })).toEqual(expected('title', order, () => true));
      expect(await search(small)).toEqual(before);
    }
  });

  it('keeps the order after an update moves a document to a new segment', async () => {
    const doc = docs.find((d) => d.id === 'd100')!;
    doc.title = 'aaaa moved first';
    expect((await json(await postJson(`${base}/s/documents`, [doc]))).errors).toEqual([]);
    expect(await search({ sort: ['title:asc'] })).toEqual(expected('title', 'asc', () => true));
    expect((await search({ sort: ['title:asc'] }))[0]).toBe('d100');
  });
});
