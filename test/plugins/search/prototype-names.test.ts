import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createTestApp, json, postJson, tempDir } from '../../helpers/app.js';

// Real data has such fields (a Formula 1 data set has `constructor`): they are ordinary names.
const names = ['constructor', 'toString', 'valueOf', 'hasOwnProperty', '__proto__', 'isPrototypeOf'];

describe('fields named like Object.prototype members', () => {
  it('map, index, search, filter and sort like any other field, before and after a restart', async () => {
    const dataDir = tempDir();
    const manifest = { listeners: [{ name: 'search', port: 0, plugins: ['search'] }], plugins: { search: {} } };
    let t = await createTestApp(manifest, { dataDir });
    try {
      const base = () => `${t.url()}/v1/indexes`;
      // Text fields named after prototype members, and a keyword one to filter and sort on.
      const mappings = Object.fromEntries([...names.map((n) => [n, { type: 'text' }]), ['team', { type: 'keyword' }]]);
      mappings.constructor = { type: 'keyword' };
      const created = await postJson(base(), { name: 'f1', mappings: JSON.parse(JSON.stringify(mappings)) });
      expect(created.status).toBeLessThan(300);
      const docs: Array<Record<string, string>> = [
        { id: 'a', constructor: 'ferrari', toString: 'red car', valueOf: 'fast', team: 'x' },
        { id: 'b', constructor: 'mclaren', toString: 'orange car', hasOwnProperty: 'papaya', team: 'y' },
        { id: 'c', title: 'no prototype fields at all', team: 'z' },
      ];
      const written = await json(await postJson(`${base()}/f1/documents`, docs));
      expect(written).toMatchObject({ indexed: 3, errors: [] });
      const check = async () => {
        const q = await json(await postJson(`${base()}/f1/search`, { q: 'car', select: ['id'] }));
        expect(q.hits.map((h: { id: string }) => h.id).sort()).toEqual(['a', 'b']);
        const field = await json(await postJson(`${base()}/f1/search`, { q: 'papaya', fields: ['hasOwnProperty'], select: ['id'] }));
        expect(field.hits.map((h: { id: string }) => h.id)).toEqual(['b']);
        const filtered = await json(await postJson(`${base()}/f1/search`, { q: '', filter: { eq: { constructor: 'ferrari' } }, select: ['id'] }));
        expect(filtered.hits.map((h: { id: string }) => h.id)).toEqual(['a']);
        const sorted = await json(await postJson(`${base()}/f1/search`, { q: '', sort: ['constructor:desc'], select: ['id'] }));
        expect(sorted.hits.map((h: { id: string }) => h.id).slice(0, 2)).toEqual(['b', 'a']);
        // A word that only appears in a prototype-named field of no document is simply absent.
        const none = await json(await postJson(`${base()}/f1/search`, { q: 'prototype', fields: ['toString'] }));
        expect(none).toMatchObject({ ok: true, total: 0 });
      };
      await check();
      await t.app.stop();
      t = await createTestApp(manifest, { dataDir });
      await check();
    } finally {
      await t.app.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
