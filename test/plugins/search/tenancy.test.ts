import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tenancyConformance } from 'tessera-runtime/testing';
import { Store } from '../../../runtime/store.js';
import { createTestApp, json, postJson, tempDir } from '../../helpers/app.js';
import { call, startRbac, type RbacApp } from '../rbac/helpers.js';

const fleet = {
  listeners: [
    { name: 'search', port: 0, plugins: ['search'] },
    { name: 'bulk', port: 0, plugins: ['bulk'] },
  ],
  plugins: { search: {}, bulk: {} },
};

tenancyConformance('search', { manifest: fleet, listener: 'search' }, [
  {
    name: 'index',
    create: async (c, label) => {
      const created = await c.call('POST', '/v1/indexes', { name: label, mappings: { title: { type: 'text' } } });
      if (created.status !== 200) throw new Error(JSON.stringify(created.body));
      return label;
    },
    read: (c, name) => c.call('GET', `/v1/indexes/${name}`),
    list: async (c) => (await c.call('GET', '/v1/indexes')).body.indexes.map((i: { name: string }) => i.name),
    update: (c, name) => c.call('PATCH', `/v1/indexes/${name}`, { settings: { defaultOperator: 'AND' } }),
    remove: (c, name) => c.call('DELETE', `/v1/indexes/${name}`),
  },
  {
    name: 'document',
    create: async (c, label) => {
      await c.call('POST', '/v1/indexes', { name: 'library', mappings: { title: { type: 'text' } } });
      const written = await c.call('POST', '/v1/indexes/library/documents', [{ id: label, title: `the ${label} book` }]);
      if (written.body.indexed !== 1) throw new Error(JSON.stringify(written.body));
      return label;
    },
    read: (c, id) => c.call('GET', `/v1/indexes/library/documents/${id}`),
    list: async (c) => {
      const found = await c.call('POST', '/v1/indexes/library/search', { q: '', size: 100 });
      return found.status === 200 ? found.body.hits.map((h: { id: string }) => h.id) : [];
    },
    remove: (c, id) => c.call('DELETE', `/v1/indexes/library/documents/${id}`),
  },
]);

describe('search under tenancy, with rbac keys', () => {
  let r: RbacApp;
  let acme: string;
  let globex: string;
  beforeAll(async () => {
    r = await startRbac({ manifest: { listeners: [{ name: 'hub', port: 0, plugins: ['rbac', 'search', 'bulk'] }], plugins: { bulk: {} } } });
    acme = (await r.userWithKey('acme-admin', ['admin'], { tenant: 'acme' })).secret;
    globex = (await r.userWithKey('globex-admin', ['admin'], { tenant: 'globex' })).secret;
  });
  afterAll(() => r.stop());
  const as = (key: string, method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    call(r.t.url('hub'), method, path, { key, body, ...(headers ? { headers } : {}) });

  it("answers 404 index_not_found for another tenant's index on every route that names it, never 403", async () => {
    expect((await as(acme, 'POST', '/v1/indexes', { name: 'secret', mappings: { title: { type: 'text' } } })).status).toBe(200);
    await as(acme, 'POST', '/v1/indexes/secret/documents', [{ id: '1', title: 'plans' }]);
    const notFound = { ok: false, error: { code: 'index_not_found', message: 'Index "secret" does not exist.', details: { index: 'secret' } } };
    for (const [method, path, body] of [
      ['GET', '/v1/indexes/secret'],
      ['PATCH', '/v1/indexes/secret', { settings: { defaultOperator: 'AND' } }],
      ['DELETE', '/v1/indexes/secret'],
      ['POST', '/v1/indexes/secret/search', { q: 'plans' }],
      ['POST', '/v1/indexes/secret/documents', [{ id: '2', title: 'x' }]],
      ['GET', '/v1/indexes/secret/documents/1'],
      ['DELETE', '/v1/indexes/secret/documents/1'],
      ['POST', '/v1/indexes/secret/documents/delete', { ids: ['1'] }],
      ['POST', '/v1/indexes/secret/bulk', undefined],
    ] as Array<[string, string, unknown]>) {
      const answer = await as(globex, method, path, body);
      expect({ method, path, status: answer.status, body: answer.body }).toEqual({ method, path, status: 404, body: notFound });
    }
    expect((await as(globex, 'GET', '/v1/indexes')).body.indexes).toEqual([]);
    expect((await as(acme, 'POST', '/v1/indexes/secret/search', { q: 'plans' })).body.hits.map((h: { id: string }) => h.id)).toEqual(['1']);
  });

  it("fails a bulk line naming another tenant's index alone, and indexes the others", async () => {
    await as(globex, 'POST', '/v1/indexes', { name: 'own', mappings: { title: { type: 'text' } } });
    const lines = [
      { index: { _index: 'own', _id: 'a' } },
      { title: 'mine' },
      { index: { _index: 'secret', _id: 'b' } },
      { title: 'theirs' },
      { index: { _index: 'own', _id: 'c' } },
      { title: 'mine too' },
    ]
      .map((l) => JSON.stringify(l))
      .join('\n');
    const res = await fetch(`${r.t.url('hub')}/v1/bulk`, {
      method: 'POST',
      headers: { 'x-api-key': globex, 'content-type': 'application/x-ndjson' },
      body: `${lines}\n`,
    });
    const body = await json(res);
    expect(body).toMatchObject({ ok: true, indexed: 2, errors: [{ line: 4, index: 'secret', code: 'index_not_found' }] });
    expect((await as(acme, 'GET', '/v1/indexes/secret/documents/b')).status).toBe(404);
    expect((await as(globex, 'GET', '/v1/indexes/own/documents/c')).status).toBe(200);
  });

  it('lets a tenants:manage key act in the tenant named by X-Tenant', async () => {
    const listed = await call(r.t.url('hub'), 'GET', '/v1/indexes', { key: r.adminKey, headers: { 'x-tenant': 'acme' } });
    expect(listed.body.indexes.map((i: { name: string }) => i.name)).toEqual(['secret']);
    const own = await call(r.t.url('hub'), 'GET', '/v1/indexes', { key: r.adminKey });
    expect(own.body.indexes).toEqual([]);
  });
});

describe('a store written before tenancy', () => {
  it('opens with every index belonging to tenant "default", documents searchable, and records the new format', async () => {
    const dataDir = tempDir();
    const manifest = { listeners: [{ name: 'search', port: 0, plugins: ['search'] }], plugins: { search: {} } };
    const first = await createTestApp(manifest, { dataDir });
    await postJson(`${first.url()}/v1/indexes`, { name: 'books', mappings: { title: { type: 'text' } } });
    await postJson(`${first.url()}/v1/indexes/books/documents`, [{ id: '1', title: 'Dune' }]);
    await first.stop();
    // Rewrite the catalogue as format 1 wrote it: keyed by name, no tenant, no recorded format.
    const store = Store.open(dataDir);
    const indexes = store.namespace('search').db<Record<string, unknown>, string | [string, string]>('indexes');
    const { tenant: _tenant, ...legacy } = indexes.get(['default', 'books']) as Record<string, unknown>;
    await indexes.remove(['default', 'books']);
    await indexes.put('books', legacy);
    await store.root.openDB({ name: '__tessera_meta' }).remove('plugin:search:formatVersion');
    await store.close();

    const second = await createTestApp(manifest, { dataDir });
    try {
      const found = await json(await postJson(`${second.url()}/v1/indexes/books/search`, { q: 'dune' }));
      expect(found.hits.map((h: { id: string }) => h.id)).toEqual(['1']);
      expect(second.logs.find((l) => l.msg === 'search catalogue migrated: indexes stored before tenancy belong to tenant "default"')).toMatchObject({
        indexes: 1,
      });
    } finally {
      await second.stop();
    }
    const after = Store.open(dataDir);
    try {
      expect(after.namespace('search').formatVersion()).toBe(2);
      expect(after.namespace('search').db('indexes').get(['default', 'books'])).toMatchObject({ tenant: 'default', name: 'books' });
      expect(after.namespace('search').db('indexes').get('books')).toBeUndefined();
    } finally {
      await after.close();
    }
  });
});
