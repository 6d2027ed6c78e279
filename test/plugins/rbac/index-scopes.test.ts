import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, hubListener, startRbac, type RbacApp } from './helpers.js';

// Index-scoped keys: outside its patterns an index does not exist for the key.
describe('index-scoped keys', () => {
  let r: RbacApp;
  let base: string;
  let scoped: { secret: string; key: { id: string; indexes: string[] } };

  beforeAll(async () => {
    r = await startRbac({ manifest: { listeners: [{ ...hubListener, plugins: ['rbac', 'search', 'bulk'] }], plugins: { bulk: {} } } });
    base = r.t.url('hub');
    for (const name of ['logs-app', 'logs-db', 'secret']) {
      expect((await r.call('POST', '/v1/indexes', { body: { name, mappings: { title: { type: 'text' } } } })).status).toBe(200);
      expect((await r.call('POST', `/v1/indexes/${name}/documents`, { body: [{ id: '1', title: `${name} entry` }] })).status).toBe(200);
    }
    const user = (await r.call('POST', '/hub/rbac/users', { body: { name: 'ingest', roles: ['developer'] } })).body.user;
    const created = await r.call('POST', '/hub/rbac/keys', {
      body: { name: 'logs only', userId: user.id, scopes: ['search:read', 'search:write'], indexes: ['logs-*'] },
    });
    expect(created.status).toBe(201);
    scoped = created.body;
  });
  afterAll(() => r.stop());

  it('returns the patterns on the key, and ["*"] for keys without them', async () => {
    expect(scoped.key.indexes).toEqual(['logs-*']);
    expect((await r.call('GET', '/hub/me')).body.key.indexes).toEqual(['*']);
  });

  it('lists only the indexes the key reaches, and answers 404 for the others on every route', async () => {
    const list = await call(base, 'GET', '/v1/indexes', { key: scoped.secret });
    expect(list.body.indexes.map((i: { name: string }) => i.name).sort()).toEqual(['logs-app', 'logs-db']);
    expect((await call(base, 'POST', '/v1/indexes/logs-app/search', { key: scoped.secret, body: { q: 'entry' } })).body.total).toBe(1);
    for (const [method, path, body] of [
      ['GET', '/v1/indexes/secret'],
      ['POST', '/v1/indexes/secret/search', { q: 'entry' }],
      ['GET', '/v1/indexes/secret/documents/1'],
      ['POST', '/v1/indexes/secret/documents', [{ id: '2' }]],
      ['POST', '/v1/indexes/secret/documents/delete', { ids: ['1'] }],
    ] as const) {
      const answer = await call(base, method, path, { key: scoped.secret, ...(body !== undefined ? { body } : {}) });
      expect(answer.status, `${method} ${path}`).toBe(404);
      expect(answer.body.error.code).toBe('index_not_found');
    }
    // The owner of all indexes still sees it.
    expect((await r.call('GET', '/v1/indexes/secret')).status).toBe(200);
  });

  it('fails the bulk lines naming an index outside the key alone', async () => {
    const body = [{ index: { _index: 'logs-app', _id: 'b1' } }, { title: 'kept' }, { index: { _index: 'secret', _id: 'b2' } }, { title: 'refused' }]
      .map((l) => JSON.stringify(l))
      .join('\n');
    const res = await fetch(`${base}/v1/bulk`, {
      method: 'POST',
      headers: { 'x-api-key': scoped.secret, 'content-type': 'application/x-ndjson' },
      body: `${body}\n`,
    });
    const answer = (await res.json()) as { indexed: number; errors: Array<{ index: string; code: string }> };
    expect(answer.indexed).toBe(1);
    expect(answer.errors).toEqual([expect.objectContaining({ index: 'secret', code: 'index_not_found' })]);
    expect((await r.call('GET', '/v1/indexes/secret/documents/b2')).status).toBe(404);
    const plain = await fetch(`${base}/v1/indexes/secret/bulk`, {
      method: 'POST',
      headers: { 'x-api-key': scoped.secret, 'content-type': 'application/x-ndjson' },
      body: '{"id":"b3"}\n',
    });
    expect(plain.status).toBe(404);
  });

  it('validates patterns, and a scoped creator cannot grant more than it reaches', async () => {
    const bad = await r.call('POST', '/hub/rbac/keys', { body: { name: 'bad', indexes: ['Logs*'] } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_failed');
    const manager = (await r.call('POST', '/hub/rbac/users', { body: { name: 'mgr', roles: ['admin'] } })).body.user;
    const limited = (await r.call('POST', '/hub/rbac/keys', { body: { name: 'mgr logs', userId: manager.id, indexes: ['logs-*'] } })).body;
    const wider = await call(base, 'POST', '/hub/rbac/keys', { key: limited.secret, body: { name: 'wider', indexes: ['*'] } });
    expect(wider.status).toBe(403);
    expect(wider.body.error.code).toBe('grant_exceeds_permissions');
    const narrower = await call(base, 'POST', '/hub/rbac/keys', { key: limited.secret, body: { name: 'narrower', indexes: ['logs-app'] } });
    expect(narrower.status).toBe(201);
    expect((await call(base, 'POST', '/hub/rbac/keys', { key: limited.secret, body: { name: 'inherits' } })).body.key.indexes).toEqual(['logs-*']);
  });
});
