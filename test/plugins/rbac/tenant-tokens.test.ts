import { createHash, createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, hubListener, startRbac, type RbacApp } from './helpers.js';

/** The token maker of docs/rbac.md: what a customer's back end runs, with node:crypto alone. */
function tenantToken(apiKey: string, keyId: string, searchRules: unknown, expiresInSeconds?: number): string {
  const part = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
  const header = part({ alg: 'HS256', typ: 'JWT', kid: keyId });
  const claims = part({ searchRules, ...(expiresInSeconds !== undefined ? { exp: Math.floor(Date.now() / 1000) + expiresInSeconds } : {}) });
  const secret = createHash('sha256').update(apiKey).digest('hex');
  const signature = createHmac('sha256', secret).update(`${header}.${claims}`).digest('base64url');
  return `${header}.${claims}.${signature}`;
}

describe('tenant tokens', () => {
  let r: RbacApp;
  let base: string;
  let parent: { secret: string; key: { id: string } };
  const search = (token: string, index: string, body: Record<string, unknown> = {}) =>
    call(base, 'POST', `/v1/indexes/${index}/search`, { headers: { authorization: `Bearer ${token}` }, body: { q: '', size: 50, ...body } });
  const ids = (answer: { body: { hits: Array<{ id: string }> } }): string[] => answer.body.hits.map((h) => h.id).sort();

  beforeAll(async () => {
    r = await startRbac({ manifest: { listeners: [{ ...hubListener, plugins: ['rbac', 'search'] }] } });
    base = r.t.url('hub');
    for (const name of ['products', 'other']) {
      await r.call('POST', '/v1/indexes', { body: { name, mappings: { title: { type: 'text' }, shop: { type: 'keyword' } } } });
      await r.call('POST', `/v1/indexes/${name}/documents`, {
        body: [
          { id: 'a1', title: 'red lamp', shop: 'a' },
          { id: 'a2', title: 'blue lamp', shop: 'a' },
          { id: 'b1', title: 'red chair', shop: 'b' },
        ],
      });
    }
    const created = await r.call('POST', '/hub/rbac/keys', {
      body: { name: 'search front end', scopes: ['search:read', 'search:write'], indexes: ['products'] },
    });
    expect(created.status).toBe(201);
    parent = created.body;
  });
  afterAll(() => r.stop());

  it('searches with the rule filter ANDed in, which the request cannot widen', async () => {
    const token = tenantToken(parent.secret, parent.key.id, { products: { filter: { eq: { shop: 'a' } } } }, 3600);
    expect(ids(await search(token, 'products'))).toEqual(['a1', 'a2']);
    expect(ids(await search(token, 'products', { q: 'red' }))).toEqual(['a1']);
    expect(ids(await search(token, 'products', { filter: { eq: { shop: 'b' } } }))).toEqual([]);
    expect(ids(await search(token, 'products', { filter: { or: [{ eq: { shop: 'a' } }, { eq: { shop: 'b' } }] } }))).toEqual(['a1', 'a2']);
  });

  it('reaches the rule indexes only, and only to list and search', async () => {
    const token = tenantToken(parent.secret, parent.key.id, ['products']);
    expect(ids(await search(token, 'products'))).toEqual(['a1', 'a2', 'b1']);
    const list = await call(base, 'GET', '/v1/indexes', { headers: { authorization: `Bearer ${token}` } });
    expect(list.body.indexes.map((i: { name: string }) => i.name)).toEqual(['products']);
    expect((await search(token, 'other')).status).toBe(404);
    const read = await call(base, 'GET', '/v1/indexes/products/documents/b1', { headers: { authorization: `Bearer ${token}` } });
    expect(read.status).toBe(403);
    // The parent may write; the token may not.
    const write = await call(base, 'POST', '/v1/indexes/products/documents', { headers: { authorization: `Bearer ${token}` }, body: [{ id: 'x' }] });
    expect(write.status).toBe(403);
  });

  it('answers 401 invalid_api_key to a bad signature, an expired token, an unknown kid, and rules beyond the parent key', async () => {
    const good = tenantToken(parent.secret, parent.key.id, ['products'], 3600);
    const [h, c, s] = good.split('.');
    const forged = `${h}.${Buffer.from(JSON.stringify({ searchRules: ['products', 'other'] })).toString('base64url')}.${s}`;
    for (const token of [
      `${h}.${c}.${s!.slice(0, -2)}${s!.endsWith('AA') ? 'BB' : 'AA'}`,
      forged,
      tenantToken(parent.secret, parent.key.id, ['products'], -10),
      tenantToken(parent.secret, 'k_unknown000000000000', ['products']),
      tenantToken(parent.secret, parent.key.id, ['other']),
      tenantToken(parent.secret, parent.key.id, ['*']),
      tenantToken('tsk_not_the_key', parent.key.id, ['products']),
    ]) {
      const answer = await search(token, 'products');
      expect(answer.status, token).toBe(401);
      expect(answer.body.error.code).toBe('invalid_api_key');
    }
  });

  it('stops working when the parent key is revoked', async () => {
    const token = tenantToken(parent.secret, parent.key.id, ['products']);
    expect((await search(token, 'products')).status).toBe(200);
    expect((await r.call('DELETE', `/hub/rbac/keys/${parent.key.id}`)).status).toBe(200);
    expect((await search(token, 'products')).status).toBe(401);
  });
});
