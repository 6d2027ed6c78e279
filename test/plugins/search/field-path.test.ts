import { describe, expect, it } from 'vitest';
import { fieldValues, valuesAtPath } from '../../../plugins/search/index/field-path.js';
import { createTestApp, json, postJson } from '../../helpers/app.js';

describe('the field-path reader', () => {
  it('reads through nested objects, arrays of objects and literal dotted keys, own properties only', () => {
    const source = { a: [{ b: 'x' }, { b: ['y', 'z'] }, { c: 1 }], 'a.b': 'literal', n: null, constructor: undefined };
    expect(valuesAtPath(source, 'a.b')).toEqual(['x', ['y', 'z'], 'literal']);
    expect(fieldValues(source, 'a.b')).toEqual(['x', 'y', 'z', 'literal']);
    expect(fieldValues(source, 'n')).toEqual([]);
    expect(fieldValues({}, 'constructor')).toEqual([]);
    expect(fieldValues({ t: 'one' }, 't')).toEqual(['one']);
  });

  it('sorts and highlights a text field inside an array of objects by the values the index holds', async () => {
    const t = await createTestApp({ listeners: [{ name: 'search', port: 0, plugins: ['search'] }], plugins: { search: {} } });
    try {
      const base = `${t.url('search')}/v1/indexes`;
      await postJson(base, { name: 'papers', mappings: { 'authors.name': { type: 'text' }, title: { type: 'text' } } });
      const docs = [
        { id: 'p1', title: 'wings', authors: [{ name: 'Moore' }, { name: 'Adams' }] },
        { id: 'p2', title: 'wings', authors: [{ name: 'Baker' }] },
        { id: 'p3', title: 'wings' },
        { id: 'p4', title: 'wings', authors: [{ name: 'Ward wings' }] },
      ];
      expect((await postJson(`${base}/papers/documents`, docs)).status).toBe(200);
      const res = await postJson(`${base}/papers/search`, { q: 'wings', sort: ['authors.name:asc'], select: ['id'] });
      const body = (await json(res)) as { hits: Array<{ id: string; highlight: Record<string, string[]> }> };
      // The first value of each document sorts it (as for any multi-valued field); none sorts last.
      expect(body.hits.map((h) => h.id)).toEqual(['p2', 'p1', 'p4', 'p3']);
      expect(body.hits.find((h) => h.id === 'p4')!.highlight).toEqual({ 'authors.name': ['Ward <mark>wings</mark>'], title: ['<mark>wings</mark>'] });
    } finally {
      await t.stop();
    }
  });
});
