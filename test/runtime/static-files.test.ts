import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, tempDir, type TestApp } from '../helpers/app.js';

/** A request sent byte for byte as written (fetch would normalise `..` and `%2e`). */
function raw(
  base: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, method: 'GET', headers: { host: url.host, ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('static files (ctx.routes.static)', () => {
  const site = tempDir('tessera-site-');
  const outside = tempDir('tessera-outside-');
  let t: TestApp;
  let base: string;

  beforeAll(async () => {
    writeFileSync(join(site, 'index.html'), '<!doctype html><title>app</title>');
    mkdirSync(join(site, 'assets'));
    writeFileSync(join(site, 'assets', 'app.3f9a1c2b.js'), 'console.log("app")');
    writeFileSync(join(site, 'assets', 'logo.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    writeFileSync(join(site, 'a b.txt'), 'spaced');
    writeFileSync(join(site, 'assets', 'my-component.js'), 'export {}');
    writeFileSync(join(outside, 'secret.txt'), 'top secret');
    symlinkSync(join(outside, 'secret.txt'), join(site, 'leak.txt'));
    symlinkSync(outside, join(site, 'elsewhere'));
    t = await createTestApp({
      listeners: [{ name: 'web', port: 0, plugins: ['static-site'] }],
      plugins: { 'static-site': { module: './plugins/static-site/index.js', options: { dir: site, spaFallback: true, maxAgeSeconds: 600 } } },
    });
    base = t.url();
  });
  afterAll(() => t.stop());

  it('serves files with their type, length, validators and cache policy', async () => {
    const html = await fetch(`${base}/ui/`);
    expect(html.status).toBe(200);
    expect(html.headers.get('content-type')).toContain('text/html');
    expect(html.headers.get('cache-control')).toBe('no-cache');
    expect(await html.text()).toContain('<title>app</title>');
    const js = await fetch(`${base}/ui/assets/app.3f9a1c2b.js`);
    expect(js.headers.get('content-type')).toContain('javascript');
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(js.headers.get('content-length')).toBe('18');
    const svg = await fetch(`${base}/ui/assets/logo.svg`);
    expect(svg.headers.get('content-type')).toContain('image/svg+xml');
    expect(svg.headers.get('cache-control')).toBe('public, max-age=600');
    expect(svg.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await (await fetch(`${base}/ui/a%20b.txt`)).text()).toBe('spaced');
    // A long word is not a content hash: a file named so changes in place and must be revalidated.
    expect((await fetch(`${base}/ui/assets/my-component.js`)).headers.get('cache-control')).toBe('public, max-age=600');
  });

  it('answers 304 to If-Modified-Since at or after Last-Modified, and 200 before it', async () => {
    const first = await fetch(`${base}/ui/assets/logo.svg`);
    const modified = first.headers.get('last-modified')!;
    expect(new Date(modified).getTime()).toBeGreaterThan(Date.now() - 3_600_000);
    const same = await fetch(`${base}/ui/assets/logo.svg`, { headers: { 'if-modified-since': modified } });
    expect(same.status).toBe(304);
    expect(await same.text()).toBe('');
    const older = new Date(new Date(modified).getTime() - 60_000).toUTCString();
    expect((await fetch(`${base}/ui/assets/logo.svg`, { headers: { 'if-modified-since': older } })).status).toBe(200);
    // A changed ETag wins over a date: the file is sent again.
    expect((await fetch(`${base}/ui/assets/logo.svg`, { headers: { 'if-none-match': 'W/"0-0"' } })).status).toBe(200);
  });

  it('answers 304 to a conditional request and HEAD without a body', async () => {
    const first = await fetch(`${base}/ui/assets/logo.svg`);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^W\/"/);
    expect((await fetch(`${base}/ui/assets/logo.svg`, { headers: { 'if-none-match': etag } })).status).toBe(304);
    const head = await fetch(`${base}/ui/assets/logo.svg`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('lets a route of the same prefix win, and keeps other methods off the files', async () => {
    expect(await (await fetch(`${base}/ui/api/ping`)).json()).toEqual({ ok: true, pong: true });
    const post = await fetch(`${base}/ui/index.html`, { method: 'POST' });
    expect(post.status).toBe(404);
    expect(((await post.json()) as { error: { code: string } }).error.code).toBe('route_not_found');
  });

  it('never serves a file outside the directory: dot segments, encoded ones, backslashes, NUL, symlinks', async () => {
    for (const path of [
      '/ui/../../../../etc/passwd',
      '/ui/%2e%2e/%2e%2e/%2e%2e/etc/passwd',
      '/ui/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd',
      '/ui/..%2f..%2f..%2fetc%2fpasswd',
      '/ui/%252e%252e/%252e%252e/etc/passwd',
      '/ui/..%5c..%5cetc%5cpasswd',
      '/ui/assets/%00logo.svg',
      '//ui/index.html/../../etc/passwd',
      '/ui/leak.txt',
      '/ui/elsewhere/secret.txt',
    ]) {
      const res = await raw(base, path, { accept: 'application/json' });
      expect(res.body, path).not.toContain('root:');
      expect(res.body, path).not.toContain('top secret');
      expect([400, 404], path).toContain(res.status);
    }
  });

  it('sets the headers a mount declares on every file, the SPA fallback and 304s included', async () => {
    const app = await createTestApp({
      listeners: [{ name: 'main', port: 0, plugins: ['static-site'] }],
      plugins: {
        'static-site': {
          module: './plugins/static-site/index.js',
          options: { dir: site, spaFallback: true, headers: { 'content-security-policy': "default-src 'self'", 'referrer-policy': 'no-referrer' } },
        },
      },
    });
    try {
      const url = app.url();
      for (const [path, headers] of [
        ['/ui/index.html', {}],
        ['/ui/assets/app.3f9a1c2b.js', {}],
        ['/ui/settings/keys', { accept: 'text/html' }],
      ] as const) {
        const res = await fetch(url + path, { headers });
        expect(res.status, path).toBe(200);
        expect(res.headers.get('content-security-policy'), path).toBe("default-src 'self'");
        expect(res.headers.get('referrer-policy'), path).toBe('no-referrer');
        const again = await fetch(url + path, { headers: { ...headers, 'if-none-match': res.headers.get('etag')! } });
        expect(again.status, path).toBe(304);
        expect(again.headers.get('content-security-policy'), path).toBe("default-src 'self'");
      }
      // The API route beside the files is not the mount's: it gets none of them.
      expect((await fetch(url + '/ui/api/ping')).headers.get('content-security-policy')).toBeNull();
    } finally {
      await app.stop();
    }
  });

  it('falls back to index.html for client-side routes that accept HTML, and not for missing files', async () => {
    const route = await fetch(`${base}/ui/settings/keys`, { headers: { accept: 'text/html,application/xhtml+xml' } });
    expect(route.status).toBe(200);
    expect(await route.text()).toContain('<title>app</title>');
    expect(route.headers.get('cache-control')).toBe('no-cache');
    // Typed as HTML although the path has no extension: a browser would show it as text otherwise.
    expect(route.headers.get('content-type')).toBe('text/html; charset=utf-8');
    // A file that is not there stays a 404, and so does a client that does not ask for HTML.
    expect((await fetch(`${base}/ui/assets/missing.js`, { headers: { accept: 'text/html' } })).status).toBe(404);
    expect((await fetch(`${base}/ui/settings/keys`, { headers: { accept: 'application/json' } })).status).toBe(404);
  });
});

describe('static files with an explicit immutable pattern', () => {
  const site = tempDir('tessera-site-');
  let t: TestApp;

  beforeAll(async () => {
    writeFileSync(join(site, 'index.html'), '<!doctype html><title>vite</title>');
    mkdirSync(join(site, 'assets'));
    // Vite's hashes are 8 base64url characters, sometimes without a digit.
    writeFileSync(join(site, 'assets', 'index-DqXbHwAe.js'), 'export {}');
    writeFileSync(join(site, 'favicon.3f9a1c2b.ico'), 'x');
    t = await createTestApp({
      listeners: [{ name: 'web', port: 0, plugins: ['static-site'] }],
      plugins: { 'static-site': { module: './plugins/static-site/index.js', options: { dir: site, prefix: '/', immutable: '^/assets/' } } },
    });
  });
  afterAll(() => t.stop());

  it('caches what the pattern names for a year, and revalidates the rest', async () => {
    expect((await fetch(`${t.url()}/assets/index-DqXbHwAe.js`)).headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await fetch(`${t.url()}/favicon.3f9a1c2b.ico`)).headers.get('cache-control')).toBe('no-cache');
    const root = await fetch(`${t.url()}/`);
    expect(root.headers.get('cache-control')).toBe('no-cache');
    expect(await root.text()).toContain('<title>vite</title>');
  });
});

describe('static mounts checked at setup', () => {
  it('refuses a relative directory, a bad prefix and a missing directory with plugin_route_invalid', async () => {
    for (const options of [
      { dir: 'relative/dir' },
      { dir: tempDir(), prefix: '/ui/' },
      { dir: tempDir(), prefix: '/a/../b' },
      { dir: join(tempDir(), 'absent') },
    ]) {
      await expect(
        createTestApp({
          listeners: [{ name: 'web', port: 0, plugins: ['static-site'] }],
          plugins: { 'static-site': { module: './plugins/static-site/index.js', options } },
        }),
      ).rejects.toMatchObject({ code: 'plugin_route_invalid' });
    }
  });
});
