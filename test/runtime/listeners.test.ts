import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, json, type TestApp } from '../helpers/app.js';

describe('several listeners in one process', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      listeners: [
        { name: 'public', port: 0, plugins: ['greeter'] },
        { name: 'admin', port: 0, plugins: ['kitchen'], metricsPath: '/metrics/prometheus' },
      ],
      plugins: { greeter: { module: './plugins/greeter/index.js' }, kitchen: { module: './plugins/kitchen/index.js' } },
    });
  });
  afterAll(() => t.stop());

  it('mounts each plugin only on its own listeners', async () => {
    expect((await fetch(`${t.url('public')}/greet/x`)).status).toBe(200);
    const elsewhere = await fetch(`${t.url('admin')}/greet/x`);
    expect(elsewhere.status).toBe(404);
    expect((await json(elsewhere)).error.code).toBe('route_not_found');
    expect((await fetch(`${t.url('public')}/kv/x`)).status).toBe(404);
  });

  it("serves /health on every listener and metrics at each listener's metricsPath", async () => {
    for (const name of ['public', 'admin']) expect((await fetch(`${t.url(name)}/health`)).status).toBe(200);
    expect((await fetch(`${t.url('public')}/metrics`)).status).toBe(200);
    expect((await fetch(`${t.url('admin')}/metrics/prometheus`)).status).toBe(200);
    expect((await fetch(`${t.url('admin')}/metrics`)).status).toBe(404);
  });

  it('binds 127.0.0.1 when no host is given', () => {
    expect(t.app.addresses().public!.host).toBe('127.0.0.1');
    expect(t.url('public')).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });
});

describe('listener start-up failures', () => {
  it('refuses a non-loopback host without auth, saying why', async () => {
    const err = await createTestApp({ listeners: [{ name: 'open', host: '0.0.0.0', port: 0, plugins: [] }] }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'listener_insecure' });
    expect((err as Error).message).toContain('Listener "open" binds 0.0.0.0, which is reachable from other machines, but auth is off for it.');
  });

  it('fails with listener_port_in_use on a busy port instead of moving elsewhere', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const err = await createTestApp({ listeners: [{ name: 'main', port, plugins: [] }] }).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'listener_port_in_use' });
      expect((err as Error).message).toBe(
        `Listener "main" cannot bind 127.0.0.1:${port}: the port is already in use. Stop the other process or change "port" in the manifest.`,
      );
    } finally {
      blocker.close();
    }
  });

  it('requires the auth provider to register an authenticator', async () => {
    const err = await createTestApp({
      listeners: [{ name: 'main', port: 0, plugins: [] }],
      plugins: { greeter: { module: './plugins/greeter/index.js' } },
      auth: { provider: 'greeter' },
    }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'auth_provider_missing' });
  });
});

describe('allowedHosts', () => {
  it('defaults to the loopback names on loopback and to any host elsewhere; a leading dot admits subdomains', async () => {
    const { testManifest, tempDir } = await import('../helpers/app.js');
    const m = testManifest(
      {
        listeners: [
          { name: 'local', port: 0, plugins: [] },
          { name: 'wide', host: '0.0.0.0', port: 0, plugins: [], auth: false },
          { name: 'named', port: 0, plugins: [], allowedHosts: ['.Example.com', '[::1]'] },
        ],
      },
      tempDir(),
    );
    expect(m.listeners.map((l) => l.allowedHosts)).toEqual([['localhost', '127.0.0.1', '::1'], true, ['.example.com', '::1']]);
    const t = await createTestApp({ listeners: [{ name: 'named', port: 0, plugins: [], allowedHosts: ['.example.com'] }] });
    try {
      const { request } = await import('node:http');
      const status = (host: string) =>
        new Promise<number>((resolve, reject) => {
          const req = request(t.url(), { path: '/health', headers: { host } }, (res) => {
            res.resume();
            resolve(res.statusCode!);
          });
          req.on('error', reject);
          req.end();
        });
      expect(await status('api.example.com:8080')).toBe(200);
      expect(await status('example.com')).toBe(200);
      expect(await status('badexample.com')).toBe(403);
      expect(await status('localhost')).toBe(403);
    } finally {
      await t.stop();
    }
  });
});
