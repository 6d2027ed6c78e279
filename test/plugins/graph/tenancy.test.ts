import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startRbac, type RbacApp } from '../rbac/helpers.js';

/** Graph, autocomplete and configuration plans belong to the index's tenant, with rbac keys. */
describe('graph, autocomplete and config plans under tenancy', () => {
  let r: RbacApp;
  let acme: string;
  let globex: string;
  let viewer: string;
  beforeAll(async () => {
    r = await startRbac({ manifest: { listeners: [{ name: 'hub', port: 0, plugins: ['rbac', 'search', 'graph'] }], plugins: { graph: {} } } });
    acme = (await r.userWithKey('acme-admin', ['admin'], { tenant: 'acme' })).secret;
    globex = (await r.userWithKey('globex-admin', ['admin'], { tenant: 'globex' })).secret;
    viewer = (await r.userWithKey('acme-viewer', ['viewer'], { tenant: 'acme' })).secret;
    const as = (key: string, method: string, path: string, body?: unknown) => call(r.t.url('hub'), method, path, { key, body });
    expect((await as(acme, 'POST', '/v1/indexes', { name: 'atlas', mappings: { title: { type: 'text' } } })).status).toBe(200);
    await as(acme, 'POST', '/v1/indexes/atlas/documents', [{ id: 'd1', title: 'Lisbon harbour' }]);
    expect((await as(acme, 'POST', '/v1/indexes/atlas/graph/entities', { entities: [{ id: 'lisbon', name: 'Lisbon', type: 'city' }] })).status).toBe(200);
  });
  afterAll(() => r.stop());
  const as = (key: string, method: string, path: string, body?: unknown) => call(r.t.url('hub'), method, path, { key, body });

  it("answers 404 index_not_found for another tenant's index on every graph and autocomplete route", async () => {
    const routes: Array<[string, string, unknown?]> = [
      ['GET', '/v1/indexes/atlas/autocomplete?q=lis'],
      ['POST', '/v1/indexes/atlas/autocomplete', { q: 'lis' }],
      ['POST', '/v1/indexes/atlas/graph/entities', { entities: [{ id: 'x', name: 'X', type: 't' }] }],
      ['POST', '/v1/indexes/atlas/graph/triples', { triples: [{ subject: 'lisbon', predicate: 'p', object: 'lisbon' }] }],
      ['POST', '/v1/indexes/atlas/graph/search', { query: 'lisbon' }],
      ['GET', '/v1/indexes/atlas/graph/entities/lisbon'],
      ['DELETE', '/v1/indexes/atlas/graph/entities/lisbon'],
      ['DELETE', '/v1/indexes/atlas/graph/triples', { triples: [{ subject: 'lisbon', predicate: 'p', object: 'lisbon' }] }],
      ['GET', '/v1/indexes/atlas/graph/stats'],
    ];
    for (const [method, path, body] of routes) {
      const answer = await as(globex, method, path, body);
      expect([method, path, answer.status, answer.body.error?.code]).toEqual([method, path, 404, 'index_not_found']);
    }
    // The owner still has it all.
    expect((await as(acme, 'GET', '/v1/indexes/atlas/graph/stats')).body.stats).toMatchObject({ entities: 1 });
    const suggested = await as(acme, 'GET', '/v1/indexes/atlas/autocomplete?q=lis');
    expect(suggested.body.suggestions.map((s: { type: string; text: string }) => `${s.type}:${s.text}`)).toEqual(['entity:Lisbon', 'document:Lisbon harbour']);
  });

  it("plans against the caller's tenant only", async () => {
    const plan = await as(globex, 'POST', '/v1/config/plan', { version: '1', indexes: [{ name: 'atlas' }] });
    expect(plan.body.plan).toEqual([{ action: 'create_index', target: 'atlas', details: { mappings: {}, settings: {} } }]);
    const own = await as(acme, 'POST', '/v1/config/plan', { version: '1', indexes: [] });
    expect(own.body.plan.map((s: { action: string; target: string }) => `${s.action} ${s.target}`)).toEqual(['delete_index atlas']);
  });

  it('requires the declared permissions: a viewer reads and suggests, but cannot write the graph or plan', async () => {
    expect((await as(viewer, 'POST', '/v1/indexes/atlas/graph/search', { query: 'lisbon' })).status).toBe(200);
    expect((await as(viewer, 'GET', '/v1/indexes/atlas/autocomplete?q=lis')).status).toBe(200);
    const write = await as(viewer, 'POST', '/v1/indexes/atlas/graph/entities', { entities: [{ id: 'x', name: 'X', type: 't' }] });
    expect([write.status, write.body.error.code]).toEqual([403, 'permission_denied']);
    const plan = await as(viewer, 'POST', '/v1/config/plan', { version: '1', indexes: [] });
    expect([plan.status, plan.body.error.code]).toEqual([403, 'permission_denied']);
  });
});
