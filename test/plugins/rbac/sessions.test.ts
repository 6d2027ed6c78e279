import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hubListener, startRbac, type RbacApp } from './helpers.js';

const feed = { module: fileURLToPath(new URL('./fixtures/feed/index.ts', import.meta.url)) };
/** A UI the operator hosts on another origin, listed in the hub listener's `cors.origins`. */
const ui = 'https://ui.example.com';

describe('browser sessions', () => {
  let r: RbacApp;
  let base: string;
  let vera: { secret: string; key: { id: string } };

  const signIn = async (apiKey: string): Promise<{ cookie: string; csrf: string; res: Response }> => {
    const res = await fetch(`${base}/hub/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiKey }) });
    const setCookie = res.headers.get('set-cookie') ?? '';
    const body = (await res.clone().json()) as { session?: { csrfToken: string } };
    return { cookie: setCookie.split(';')[0]!, csrf: body.session?.csrfToken ?? '', res };
  };

  beforeAll(async () => {
    r = await startRbac({
      manifest: { listeners: [{ ...hubListener, plugins: ['rbac', 'feed'], cors: { origins: [ui], credentials: true } }], plugins: { feed } },
      options: { sessions: { ttlSeconds: 3600, idleSeconds: 60 } },
    });
    base = r.t.url('hub');
    vera = await r.userWithKey('vera', ['viewer']);
  });
  afterAll(() => r.stop());

  it('signs in with a key: an HttpOnly, SameSite=Strict cookie holding a random id, and the CSRF token in the body', async () => {
    const { res, cookie, csrf } = await signIn(vera.secret);
    expect(res.status).toBe(200);
    const setCookie = res.headers.get('set-cookie')!;
    expect(setCookie).toMatch(/^tessera_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=3600$/);
    expect(setCookie).not.toContain(vera.secret);
    expect(csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const me = await fetch(`${base}/hub/me`, { headers: { cookie } });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { user: { name: string } }).user.name).toBe('vera');
    const session = (await (await fetch(`${base}/hub/session`, { headers: { cookie } })).json()) as { session: { csrfToken: string } };
    expect(session.session.csrfToken).toBe(csrf);
  });

  it('signs in from an HTML form and redirects to a path of this server only', async () => {
    const form = await fetch(`${base}/hub/session`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `apiKey=${encodeURIComponent(vera.secret)}&redirect=${encodeURIComponent('/ui/')}`,
    });
    expect(form.status).toBe(303);
    expect(form.headers.get('location')).toBe('/ui/');
    expect(form.headers.get('set-cookie')).toMatch(/^tessera_session=/);
    const open = await fetch(`${base}/hub/session`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `apiKey=${encodeURIComponent(vera.secret)}&redirect=${encodeURIComponent('//evil.example/')}`,
    });
    expect(open.status).toBe(400);
  });

  it('refuses a wrong key like any request (401, counted by the throttle) and a sign-in from another site', async () => {
    const bad = await signIn(`${vera.secret.slice(0, -4)}${vera.secret.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`);
    expect(bad.res.status).toBe(401);
    expect(bad.res.headers.get('set-cookie')).toBeNull();
    const cross = await fetch(`${base}/hub/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'https://evil.example' },
      body: JSON.stringify({ apiKey: vera.secret }),
    });
    expect(cross.status).toBe(403);
  });

  it('lets a UI on an origin the listener lists sign in and send credentialed requests, CSRF token included', async () => {
    const res = await fetch(`${base}/hub/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: ui },
      body: JSON.stringify({ apiKey: vera.secret }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(ui);
    expect(res.headers.get('access-control-allow-credentials')).toBe('true');
    const cookie = res.headers.get('set-cookie')!.split(';')[0]!;
    const csrf = ((await res.json()) as { session: { csrfToken: string } }).session.csrfToken;
    const preflight = await fetch(`${base}/hub/feed/echo`, {
      method: 'OPTIONS',
      headers: { origin: ui, 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-csrf-token' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toContain('x-csrf-token');
    expect((await fetch(`${base}/hub/feed/echo`, { method: 'POST', headers: { origin: ui, cookie } })).status).toBe(403);
    const echoed = await fetch(`${base}/hub/feed/echo`, { method: 'POST', headers: { origin: ui, cookie, 'x-csrf-token': csrf } });
    expect(echoed.status).toBe(200);
    expect(echoed.headers.get('access-control-allow-origin')).toBe(ui);
  });

  it('needs the CSRF token for a state change with the cookie, and not with a key', async () => {
    const { cookie, csrf } = await signIn(vera.secret);
    const without = await fetch(`${base}/hub/feed/echo`, { method: 'POST', headers: { cookie } });
    expect(without.status).toBe(403);
    expect(((await without.json()) as { error: { code: string } }).error.code).toBe('csrf_token_invalid');
    const wrong = await fetch(`${base}/hub/feed/echo`, {
      method: 'POST',
      headers: { cookie, 'x-csrf-token': `${csrf.slice(0, -1)}${csrf.endsWith('A') ? 'B' : 'A'}` },
    });
    expect(wrong.status).toBe(403);
    expect((await fetch(`${base}/hub/feed/echo`, { method: 'POST', headers: { cookie, 'x-csrf-token': csrf } })).status).toBe(200);
    expect((await fetch(`${base}/hub/feed/echo`, { method: 'POST', headers: { 'x-api-key': vera.secret } })).status).toBe(200);
  });

  it('serves Server-Sent Events to a client that only has the cookie (an EventSource)', async () => {
    const { cookie } = await signIn(vera.secret);
    const res = await fetch(`${base}/hub/feed`, { headers: { cookie, accept: 'text/event-stream' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const text = await res.text();
    expect(text).toContain('event: tick');
    expect(text).toContain('"user":"vera"');
    expect((await fetch(`${base}/hub/feed`, { headers: { accept: 'text/event-stream' } })).status).toBe(401);
  });

  it('signs out: the session ends, the cookie is cleared, and the old cookie is refused', async () => {
    const { cookie, csrf } = await signIn(vera.secret);
    expect((await fetch(`${base}/hub/session`, { method: 'DELETE', headers: { cookie } })).status).toBe(403);
    const out = await fetch(`${base}/hub/session`, { method: 'DELETE', headers: { cookie, 'x-csrf-token': csrf } });
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toMatch(/^tessera_session=; .*Max-Age=0/);
    const after = await fetch(`${base}/hub/me`, { headers: { cookie } });
    expect(after.status).toBe(401);
    expect(((await after.json()) as { error: { code: string } }).error.code).toBe('session_invalid');
  });

  it('ends the sessions of a revoked key', async () => {
    const kim = await r.userWithKey('kim', ['viewer']);
    const { cookie } = await signIn(kim.secret);
    expect((await fetch(`${base}/hub/me`, { headers: { cookie } })).status).toBe(200);
    expect((await r.call('DELETE', `/hub/rbac/keys/${kim.key.id}`)).status).toBe(200);
    expect((await fetch(`${base}/hub/me`, { headers: { cookie } })).status).toBe(401);
  });

  it('expires a session at the end of its lifetime, however active it was', async () => {
    const { cookie } = await signIn(vera.secret);
    const realNow = Date.now;
    try {
      // Requests every 50 s keep it from idling out; the 3600 s lifetime still ends it.
      for (let t = 50_000; t < 3_600_000; t += 50_000) {
        Date.now = () => realNow() + t;
        expect((await fetch(`${base}/hub/session`, { headers: { cookie } })).status).toBe(200);
        // The last-seen time is written asynchronously (in real use the next request is 50 s away).
        // Store writes commit in order, so once a later write (a sign-in's session) has committed,
        // so has this one: no timing guess that a loaded machine can miss.
        await signIn(vera.secret);
      }
      Date.now = () => realNow() + 3_600_000;
      const res = await fetch(`${base}/hub/me`, { headers: { cookie } });
      expect(res.status).toBe(401);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('session_expired');
    } finally {
      Date.now = realNow;
    }
  });

  it('expires a session after its idle timeout', async () => {
    const { cookie } = await signIn(vera.secret);
    const id = cookie.split('=')[1]!;
    const realNow = Date.now;
    try {
      // The store compares against the clock: 61 s later the 60 s idle timeout has passed.
      Date.now = () => realNow() + 61_000;
      const res = await fetch(`${base}/hub/me`, { headers: { cookie: `tessera_session=${id}` } });
      expect(res.status).toBe(401);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('session_expired');
    } finally {
      Date.now = realNow;
    }
  });
});
