import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, testManifest, tempDir, type TestApp } from '../helpers/app.js';

describe('CORS per listener', () => {
  let t: TestApp;
  let open: string;
  let closed: string;
  const ui = 'https://ui.example.com';

  beforeAll(async () => {
    t = await createTestApp({
      listeners: [
        { name: 'api', port: 0, plugins: ['greeter'], cors: { origins: [ui], credentials: true, maxAgeSeconds: 120 } },
        { name: 'plain', port: 0, plugins: ['kitchen'] },
      ],
      plugins: { greeter: { module: './plugins/greeter/index.js' }, kitchen: { module: './plugins/kitchen/index.js' } },
    });
    open = t.url('api');
    closed = t.url('plain');
  });
  afterAll(() => t.stop());

  it("lets a listed origin's page read answers, errors included, with credentials", async () => {
    const res = await fetch(`${open}/greet/ada`, { headers: { origin: ui } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(ui);
    expect(res.headers.get('access-control-allow-credentials')).toBe('true');
    expect(res.headers.get('access-control-expose-headers')).toContain('x-request-id');
    expect(res.headers.get('vary')).toContain('Origin');
    const missing = await fetch(`${open}/nowhere`, { headers: { origin: ui } });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('access-control-allow-origin')).toBe(ui);
  });

  it("answers a listed origin's preflight with 204 before routing", async () => {
    const res = await fetch(`${open}/greet/ada`, {
      method: 'OPTIONS',
      headers: { origin: ui, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, x-api-key' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(ui);
    expect(res.headers.get('access-control-allow-methods')).toContain('POST');
    expect(res.headers.get('access-control-allow-headers')).toContain('x-api-key');
    expect(res.headers.get('access-control-max-age')).toBe('120');
  });

  it('gives other origins nothing: refused on a listener without auth, and no CORS headers', async () => {
    for (const url of [`${open}/greet/ada`, `${closed}/health`]) {
      const res = await fetch(url, { headers: { origin: 'https://evil.example' } });
      expect(res.status).toBe(403);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('origin_not_allowed');
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    }
    const preflight = await fetch(`${open}/greet/ada`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('is off by default: a listener without cors sends no CORS headers to its own origin either', async () => {
    const res = await fetch(`${closed}/health`);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('refuses origins "*" on a listener with auth off, which only its origin check protects', () => {
    expect(() => testManifest({ listeners: [{ name: 'api', port: 0, plugins: [], cors: { origins: '*' } }], plugins: {} }, tempDir())).toThrowError(
      expect.objectContaining({ code: 'manifest_invalid', message: expect.stringContaining('listeners[0].cors.origins') }),
    );
  });

  it('refuses origins "*" with credentials in the manifest', () => {
    expect(() =>
      testManifest({ listeners: [{ name: 'api', port: 0, plugins: [], cors: { origins: '*', credentials: true } }], plugins: {} }, tempDir()),
    ).toThrowError(expect.objectContaining({ code: 'manifest_invalid', message: expect.stringContaining('credentials') }));
  });
});
