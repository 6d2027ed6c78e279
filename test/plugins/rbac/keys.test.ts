import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startRbac, type RbacApp } from './helpers.js';

const invalidKey = { ok: false, error: { code: 'invalid_api_key', message: 'The API key is not valid.' } };

describe('API keys', () => {
  let r: RbacApp;
  let base: string;
  let adminUserId: string;
  beforeAll(async () => {
    r = await startRbac();
    base = r.t.url('hub');
    adminUserId = (await r.call('GET', '/hub/me')).body.user.id;
  });
  afterAll(() => r.stop());

  it('creates a tsk_ key whose secret is in the creation answer only; lists show metadata, never secret or hash', async () => {
    const created = await r.call('POST', '/hub/rbac/keys', { body: { name: 'ci', scopes: ['workflow:read', 'search:read'] } });
    expect(created.status).toBe(201);
    const { key, secret } = created.body;
    expect(secret).toMatch(/^tsk_[0-9a-z]{9}[0-9A-Za-z]{50}$/);
    expect(created.body).toEqual({
      ok: true,
      secret,
      key: {
        id: key.id,
        tenant: 'default',
        userId: adminUserId,
        name: 'ci',
        prefix: `tsk_${key.id}`,
        scopes: ['search:read', 'workflow:read'],
        indexes: ['*'],
        createdBy: adminUserId,
        createdAt: expect.any(String),
        expiresAt: null,
        revokedAt: null,
        lastUsedAt: null,
        state: 'active',
      },
    });
    expect(secret.startsWith(key.prefix)).toBe(true);

    const list = await r.call('GET', '/hub/rbac/keys');
    expect(list.body.keys.find((k: { id: string }) => k.id === key.id)).toEqual(key);
    const text = JSON.stringify(list.body);
    expect(text).not.toContain(secret);
    expect(text).not.toContain(secret.slice(key.prefix.length));
    expect(text).not.toContain('"hash"');
  });

  it('accepts the key in x-api-key and as Authorization: Bearer, with exactly its scopes', async () => {
    const { body } = await r.call('POST', '/hub/rbac/keys', { body: { name: 'bearer', scopes: ['workflow:read'] } });
    const viaHeader = await call(base, 'GET', '/hub/me', { key: body.secret });
    const viaBearer = await call(base, 'GET', '/hub/me', { headers: { authorization: `Bearer ${body.secret}` } });
    expect(viaHeader.status).toBe(200);
    expect(viaHeader.body.permissions).toEqual(['workflow:read']);
    expect(viaBearer.body.permissions).toEqual(['workflow:read']);
    expect(viaBearer.body.key.id).toBe(body.key.id);
    expect(await call(base, 'GET', '/hub/rbac/users', { key: body.secret })).toMatchObject({
      status: 403,
      body: { ok: false, error: { code: 'permission_denied', message: 'Missing permission rbac:manage.', details: { permission: 'rbac:manage' } } },
    });
  });

  it("defaults scopes to everything both the creator and the key's user hold", async () => {
    const dev = await r.userWithKey('dora', ['developer']);
    expect(dev.key.scopes).toEqual(['search:read', 'search:write', 'workflow:read', 'workflow:create', 'workflow:edit', 'workflow:delete', 'workflow:test']);
    expect(dev.key.userId).toBe(dev.user.id);
    expect(dev.key.createdBy).toBe(adminUserId);
  });

  it("refuses scopes beyond the creator's permissions, or beyond the key's user's, with 403 grant_exceeds_permissions", async () => {
    await r.call('POST', '/hub/rbac/roles', { body: { name: 'key-manager', permissions: ['rbac:manage', 'workflow:read'] } });
    const manager = await r.userWithKey('mona', ['key-manager']);
    const dev = await r.userWithKey('dan', ['developer']);
    const asManager = (body: unknown) => call(base, 'POST', '/hub/rbac/keys', { key: manager.secret, body });

    expect(await asManager({ name: 'too much', scopes: ['workflow:deploy'] })).toMatchObject({
      status: 403,
      body: {
        ok: false,
        error: {
          code: 'grant_exceeds_permissions',
          message: 'Cannot grant permissions you do not hold: workflow:deploy.',
          details: { notHeld: ['workflow:deploy'], whose: 'caller' },
        },
      },
    });
    expect((await asManager({ name: 'for dan', userId: dev.user.id, scopes: ['workflow:create'] })).body.error.details).toEqual({
      notHeld: ['workflow:create'],
      whose: 'caller',
    });
    const subset = await asManager({ name: 'for dan', userId: dev.user.id, scopes: ['workflow:read'] });
    expect(subset.status).toBe(201);
    expect(subset.body.key.scopes).toEqual(['workflow:read']);
    // Defaults never exceed the creator either: dan's own permissions capped by mona's.
    expect((await asManager({ name: 'default for dan', userId: dev.user.id })).body.key.scopes).toEqual(['workflow:read']);

    const viewer = await r.userWithKey('val', ['viewer']);
    expect(await r.call('POST', '/hub/rbac/keys', { body: { name: 'x', userId: viewer.user.id, scopes: ['workflow:create'] } })).toMatchObject({
      status: 403,
      body: {
        error: {
          code: 'grant_exceeds_permissions',
          message: "Cannot grant permissions the key's owner does not hold: workflow:create.",
          details: { notHeld: ['workflow:create'], whose: 'owner' },
        },
      },
    });
    expect(await r.call('POST', '/hub/rbac/keys', { body: { name: 'x', scopes: ['workflow:fly'] } })).toMatchObject({
      status: 400,
      body: { ok: false, error: { code: 'unknown_permission', message: 'Unknown permission: workflow:fly.', details: { permissions: ['workflow:fly'] } } },
    });
    expect(await r.call('POST', '/hub/rbac/keys', { body: { name: 'x', userId: 'nobody' } })).toMatchObject({
      status: 404,
      body: { ok: false, error: { code: 'user_not_found', message: 'No user "nobody" in this tenant.' } },
    });
  });

  it('stops an expired key on the first request after expiresAt, with the same 401 as an unknown key', async () => {
    const expiresAt = new Date(Date.now() + 1500).toISOString();
    const created = await r.call('POST', '/hub/rbac/keys', { body: { name: 'short', scopes: ['workflow:read'], expiresAt } });
    expect(created.body.key.expiresAt).toBe(expiresAt);
    expect((await call(base, 'GET', '/hub/me', { key: created.body.secret })).status).toBe(200);
    await sleep(Date.parse(expiresAt) - Date.now() + 50);
    expect(await call(base, 'GET', '/hub/me', { key: created.body.secret })).toMatchObject({ status: 401, body: invalidKey });
    const listed = (await r.call('GET', '/hub/rbac/keys')).body.keys.find((k: { id: string }) => k.id === created.body.key.id);
    expect(listed.state).toBe('expired');
    expect(await r.call('POST', '/hub/rbac/keys', { body: { name: 'past', expiresAt: '2020-01-01T00:00:00Z' } })).toMatchObject({
      status: 400,
      body: { ok: false, error: { code: 'invalid_expiry', message: '"expiresAt" must be in the future.' } },
    });
  });

  it('stops a revoked key on the very next request; revoking again keeps the first revokedAt', async () => {
    const created = await r.call('POST', '/hub/rbac/keys', { body: { name: 'to revoke', scopes: ['workflow:read'] } });
    const secret = created.body.secret;
    expect((await call(base, 'GET', '/hub/me', { key: secret })).status).toBe(200);
    const revoked = await r.call('DELETE', `/hub/rbac/keys/${created.body.key.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.key).toEqual({ ...created.body.key, revokedAt: expect.any(String), lastUsedAt: expect.any(String), state: 'revoked' });
    expect(await call(base, 'GET', '/hub/me', { key: secret })).toMatchObject({ status: 401, body: invalidKey });
    const unknown = await call(base, 'GET', '/hub/me', { key: `${secret.slice(0, 20)}${'A'.repeat(43)}` });
    expect(unknown).toMatchObject({ status: 401, body: invalidKey });
    const again = await r.call('DELETE', `/hub/rbac/keys/${created.body.key.id}`);
    expect(again.body.key.revokedAt).toBe(revoked.body.key.revokedAt);
    expect(await r.call('DELETE', '/hub/rbac/keys/0000000000000000')).toMatchObject({
      status: 404,
      body: { ok: false, error: { code: 'key_not_found', message: 'No API key "0000000000000000".' } },
    });
  });

  it('shows and revokes only its own keys to a caller without rbac:manage', async () => {
    const viewer = await r.userWithKey('vera', ['viewer']);
    const second = await r.call('POST', '/hub/rbac/keys', { body: { name: 'vera second', userId: viewer.user.id } });
    const own = await call(base, 'GET', '/hub/rbac/keys', { key: viewer.secret });
    expect(own.status).toBe(200);
    expect(own.body.keys.map((k: { id: string }) => k.id)).toEqual([viewer.key.id, second.body.key.id]);
    expect((await call(base, 'GET', `/hub/rbac/keys?userId=${adminUserId}`, { key: viewer.secret })).body).toEqual({ ok: true, keys: [], nextCursor: null });
    const adminKeyId = (await r.call('GET', '/hub/me')).body.key.id;
    expect(await call(base, 'DELETE', `/hub/rbac/keys/${adminKeyId}`, { key: viewer.secret })).toMatchObject({
      status: 404,
      body: { error: { code: 'key_not_found' } },
    });
    expect((await call(base, 'DELETE', `/hub/rbac/keys/${second.body.key.id}`, { key: viewer.secret })).body.key.state).toBe('revoked');
    // The manager sees every key of the tenant.
    const all = (await r.call('GET', '/hub/rbac/keys?limit=200')).body.keys.map((k: { id: string }) => k.id);
    expect(all).toEqual(expect.arrayContaining([adminKeyId, viewer.key.id, second.body.key.id]));
  });

  it('pages the key list with limit and nextCursor', async () => {
    const all = (await r.call('GET', '/hub/rbac/keys?limit=200')).body.keys.map((k: { id: string }) => k.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await r.call('GET', `/hub/rbac/keys?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.body.keys.length).toBeLessThanOrEqual(3);
      seen.push(...page.body.keys.map((k: { id: string }) => k.id));
      cursor = page.body.nextCursor;
    } while (cursor !== null);
    expect(seen).toEqual(all);
    expect(await r.call('GET', '/hub/rbac/keys?cursor=..%2F')).toMatchObject({ status: 400, body: { error: { code: 'invalid_cursor' } } });
  });

  it('writes lastUsedAt on use, at most once a minute per key', async () => {
    const created = await r.call('POST', '/hub/rbac/keys', { body: { name: 'usage', scopes: [] } });
    expect(created.body.key.lastUsedAt).toBeNull();
    await call(base, 'GET', '/hub/me', { key: created.body.secret });
    const first = (await call(base, 'GET', '/hub/me', { key: created.body.secret })).body.key.lastUsedAt;
    expect(Date.parse(first)).toBeGreaterThanOrEqual(Date.parse(created.body.key.createdAt));
    await sleep(20);
    await call(base, 'GET', '/hub/me', { key: created.body.secret });
    const listed = (await r.call('GET', '/hub/rbac/keys?limit=200')).body.keys.find((k: { id: string }) => k.id === created.body.key.id);
    expect(listed.lastUsedAt).toBe(first);
  });
});
