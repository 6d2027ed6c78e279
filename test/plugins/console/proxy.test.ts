import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { send, startFleet, type Fleet } from './support.js';

describe('fleet proxy without auth', () => {
  let f: Fleet;
  beforeAll(async () => {
    f = await startFleet();
  });
  afterAll(() => f.stop());

  it('forwards any method, path, query and body to the named listener and returns its answer', async () => {
    const created = await send(`${f.console}/api/fleet/search/v1/indexes`, { body: { name: 'p1', mappings: { title: { type: 'text' } } } });
    expect(created.status).toBe(200);
    expect(created.body.index.name).toBe('p1');
    const direct = await send(`${f.search}/v1/indexes/p1`);
    expect(direct.body.index.name).toBe('p1');
    const missing = await send(`${f.console}/api/fleet/search/v1/indexes/nope?x=1`);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('index_not_found');
    const deleted = await send(`${f.console}/api/fleet/search/v1/indexes/p1`, { method: 'DELETE' });
    expect(deleted.body).toEqual({ ok: true, deleted: 'p1' });
  });

  it('refuses a listener the deployment does not have and its own listener (no open proxy, no loop)', async () => {
    const unknown = await send(`${f.console}/api/fleet/evil.example.com/x`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: 'listener_not_found', details: { listener: 'evil.example.com' } });
    const own = await send(`${f.console}/api/fleet/control/v1/system`);
    expect(own.status).toBe(403);
    expect(own.body.error.code).toBe('proxy_target_refused');
    // A host smuggled in the path stays a path of the target listener.
    const smuggled = await send(`${f.console}/api/fleet/search//evil.example.com/v1/indexes`);
    expect(smuggled.status).toBe(404);
  });

  it("serves an OpenAPI 3.1 document for the control plane's listener that validates", async () => {
    const { Validator } = await import('@seriousme/openapi-schema-validator');
    const doc = (await send(`${f.console}/openapi.json`)).body;
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/console', '/v1/ingest/{index}']));
  });

  it('streams Server-Sent Events through', async () => {
    const scan = await send(`${f.scanner}/v1/scans/folder`, { body: { path: `${f.root}/docs`, targetIndex: 'files' } });
    expect(scan.status).toBe(200);
    const res = await fetch(`${f.console}/api/fleet/scanner/v1/scans/${scan.body.scanId}/events`, { headers: { accept: 'text/event-stream' } });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const text = await res.text();
    expect(text).toMatch(/event: scan\.completed/);
  });
});

describe('fleet proxy with auth on', () => {
  let f: Fleet;
  beforeAll(async () => {
    f = await startFleet({ auth: true, extraListener: { name: 'open', port: 0, plugins: ['search'], auth: false } });
  });
  afterAll(() => f.stop());

  it('needs a credential, and carries the session cookie and CSRF token through to the target', async () => {
    const anonymous = await send(`${f.console}/api/fleet/search/v1/indexes`);
    expect(anonymous.status).toBe(401);

    const signIn = await send(`${f.console}/hub/session`, { body: { apiKey: f.adminKey } });
    expect(signIn.status).toBe(200);
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
    const csrf = signIn.body.session.csrfToken as string;

    const list = await send(`${f.console}/api/fleet/search/v1/indexes`, { headers: { cookie } });
    expect(list.status).toBe(200);
    expect(list.body.indexes).toEqual([]);

    const noToken = await send(`${f.console}/api/fleet/search/v1/indexes`, { headers: { cookie }, body: { name: 'a1' } });
    expect(noToken.status).toBe(403);
    expect(noToken.body.error.code).toBe('csrf_token_invalid');

    const withToken = await send(`${f.console}/api/fleet/search/v1/indexes`, { headers: { cookie, 'x-csrf-token': csrf }, body: { name: 'a1' } });
    expect(withToken.status).toBe(200);

    const withKey = await send(`${f.console}/api/fleet/search/v1/indexes/a1`, { headers: { 'x-api-key': f.adminKey! } });
    expect(withKey.body.index.name).toBe('a1');
  });

  it('refuses a listener with auth off, which would lower the bar for every signed-in user', async () => {
    const res = await send(`${f.console}/api/fleet/open/v1/indexes`, { headers: { 'x-api-key': f.adminKey! } });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('proxy_target_refused');
    expect(res.body.error.message).toContain('auth off');
  });

  it('tells the UI before sign-in that auth is on and where to sign in', async () => {
    const info = await send(`${f.console}/api/console`);
    expect(info.body).toEqual({ ok: true, name: 'test', version: '0.1.0', auth: true, signIn: '/hub/session', listener: 'control' });
  });
});
