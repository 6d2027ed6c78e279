import { describe, expect, it } from 'vitest';
import { createTestApp, json, tempDir } from '../../helpers/app.js';

// Every route of search and bulk, read from their OpenAPI documents, called with every
// Object.prototype member name in every place a name goes: index names (as far as index names
// allow: lower case), document ids, field names in mappings, documents, filters, sorts,
// projections and searched fields. None may answer 500, and the data must survive a restart.
const members = [
  'constructor',
  'toString',
  'valueOf',
  'hasOwnProperty',
  '__proto__',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
  '__defineGetter__',
];
const indexNames = [...new Set(members.map((m) => m.toLowerCase().replace(/^_+/, 'x')))];

function bodyFor(method: string, path: string, name: string): { body?: string; type?: string } {
  const jsonBody = (value: unknown) => ({ body: JSON.stringify(value), type: 'application/json' });
  if (method === 'GET' || method === 'DELETE' || method === 'HEAD') return {};
  if (path === '/v1/indexes')
    return jsonBody({ name: name.toLowerCase().replace(/^_+/, 'x'), mappings: { [name]: { type: 'keyword' }, title: { type: 'text' } } });
  if (path.endsWith('/search'))
    return jsonBody({ q: name, fields: [name], filter: { eq: { [name]: 'v' } }, sort: [`${name}:desc`], select: ['id', name], highlight: true });
  if (path.endsWith('/documents/delete')) return jsonBody({ ids: [name] });
  if (path.endsWith('/documents')) return jsonBody([{ id: name, [name]: 'v', title: `${name} title` }]);
  if (path.endsWith('/bulk') || path === '/v1/bulk') {
    const action = { index: { _index: 'constructor', _id: name } };
    return { body: `${JSON.stringify(action)}\n${JSON.stringify({ [name]: 'v', title: name })}\n`, type: 'application/x-ndjson' };
  }
  if (method === 'PATCH') return jsonBody({ mappings: { [`${name}2`]: { type: 'text' } }, settings: { defaultOperator: 'AND' } });
  return jsonBody({});
}

describe('every route with every Object.prototype member name', () => {
  it('never answers 500, and keeps working after a restart', async () => {
    const dataDir = tempDir();
    const manifest = {
      listeners: [
        { name: 'search', port: 0, plugins: ['search'] },
        { name: 'bulk', port: 0, plugins: ['bulk'] },
      ],
      plugins: { search: {}, bulk: {} },
    };
    let t = await createTestApp(manifest, { dataDir });
    const failures: string[] = [];
    let calls = 0;
    try {
      const base = (listener: string) => t.url(listener);
      await fetch(`${base('search')}/v1/indexes`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          name: 'constructor',
          mappings: Object.fromEntries([...members.map((m) => [m, { type: 'keyword' }]), ['title', { type: 'text' }]]),
        }),
      });
      for (const listener of ['search', 'bulk']) {
        const doc = await json(await fetch(`${base(listener)}/openapi.json`));
        for (const [template, operations] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
          if (!template.startsWith('/v1/')) continue;
          for (const method of Object.keys(operations).map((m) => m.toUpperCase())) {
            // Dropping the index comes last, after the restart: every other route must meet it alive.
            if (method === 'DELETE' && template === '/v1/indexes/{name}') continue;
            for (const name of members) {
              const path = template.replace('{name}', 'constructor').replace('{id}', encodeURIComponent(name));
              const { body, type } = bodyFor(method, template.replace('{name}', ':name').replace('{id}', ':id'), name);
              const res = await fetch(`${base(listener)}${path}`, { method, ...(body !== undefined ? { body, headers: { 'content-type': type! } } : {}) });
              calls++;
              if (res.status >= 500) failures.push(`${method} ${path} (${name}): ${res.status} ${await res.text()}`);
              else await res.arrayBuffer();
            }
          }
        }
      }
      // Index names too, as far as index names allow.
      for (const name of indexNames) {
        const res = await fetch(`${base('search')}/v1/indexes/${name}/search`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"q":""}',
        });
        if (res.status >= 500) failures.push(`search ${name}: ${res.status}`);
      }
      expect(failures).toEqual([]);
      expect(calls).toBeGreaterThan(100);
      await t.app.stop();
      t = await createTestApp(manifest, { dataDir });
      const after = await json(
        await fetch(`${t.url('search')}/v1/indexes/constructor/search`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ q: '', filter: { eq: { constructor: 'v' } }, sort: ['valueOf:asc'], size: 100 }),
        }),
      );
      expect(after.ok, JSON.stringify(after)).toBe(true);
      expect(after.total, 'documents written under prototype-member names survive').toBeGreaterThan(0);
      // Every document written under a prototype-member id is there, and each reads back.
      for (const name of members) {
        const res = await fetch(`${t.url('search')}/v1/indexes/constructor/documents/${encodeURIComponent(name)}`);
        expect(res.status, name).toBeLessThan(500);
      }
      expect((await fetch(`${t.url('search')}/v1/indexes/constructor`, { method: 'DELETE' })).status).toBe(200);
    } finally {
      await t.stop();
    }
  });
});
