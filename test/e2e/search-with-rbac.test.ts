import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json } from '../helpers/app.js';
import { hubListener, startRbac, type RbacApp } from '../plugins/rbac/helpers.js';

/** A search deployment protected by its manifest alone: rbac as the auth provider, nothing else. */
describe('search routes behind rbac', () => {
  let rbac: RbacApp;
  let search: string;
  beforeAll(async () => {
    rbac = await startRbac({
      manifest: {
        listeners: [hubListener, { name: 'search', port: 0, plugins: ['search'] }],
        plugins: { rbac: {}, search: {} },
      },
    });
    search = `${rbac.t.url('search')}/v1/indexes`;
  });
  afterAll(() => rbac.stop());

  const req = (path: string, key: string | undefined, body?: unknown): Promise<Response> =>
    fetch(`${search}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { ...(key ? { 'x-api-key': key } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  it('answers 401 without a key and serves the admin key', async () => {
    expect((await json(await req('', undefined))).error.code).toBe('missing_api_key');
    expect((await req('', rbac.adminKey)).status).toBe(200);
    expect((await fetch(`${rbac.t.url('search')}/health`)).status).toBe(200);
  });

  it('enforces search:read, search:write and index:admin per route', async () => {
    expect((await req('', rbac.adminKey, { name: 'guarded', mappings: { title: { type: 'text' } } })).status).toBe(200);
    const reader = await rbac.userWithKey('reader', ['viewer']);
    expect((await req('/guarded/search', reader.secret, { q: 'x' })).status).toBe(200);
    const write = await req('/guarded/documents', reader.secret, [{ id: '1', title: 'x' }]);
    expect(write.status).toBe(403);
    expect((await json(write)).error).toMatchObject({ code: 'permission_denied', details: { permission: 'search:write' } });
    const create = await req('', reader.secret, { name: 'other' });
    expect(create.status).toBe(403);
    expect((await json(create)).error.details.permission).toBe('index:admin');
  });
});
