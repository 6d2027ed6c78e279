import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from 'tessera-runtime/testing';
import { definePlugin, type PluginDefinition } from 'tessera-runtime/plugin';
import { json } from '../helpers/app.js';

// The fixtures are plain JavaScript plugins, as a third-party author might write them.
const fixture = async (name: string): Promise<PluginDefinition<any>> =>
  ((await import(`../fixtures/plugins/${name}/index.js`)) as { default: PluginDefinition<any> }).default;
const kitchen = await fixture('kitchen');
const greeter = await fixture('greeter');

describe('tessera-runtime/testing createTestApp', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ plugins: [kitchen, greeter], options: { greeter: { greeting: 'Hi' } } });
  });
  afterAll(() => t?.close());

  it('serves a plugin definition through the listener pipeline without binding a port', async () => {
    const res = await t.fetch('/greet/ann');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(await json(res)).toEqual({ ok: true, message: 'Hi, ann!', count: 1 });
    expect((await json(await t.fetch('/greet/ann'))).count).toBe(2);
    expect(t.app.listeners[0]!.address.port).toBe(0);
    expect(() => t.url()).toThrow(/listen: true/);
  });

  it('validates bodies and answers the standard error body', async () => {
    const res = await t.fetch('/echo', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: '', count: -1 }) });
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(body.ok).toBe(false);
    expect(body.error.code).toBe('validation_failed');
    expect(body.error.details.issues.map((i: { path: string }) => i.path).sort()).toEqual(['body.count', 'body.name']);
  });

  it('answers 404 route_not_found and keeps host checks on', async () => {
    const missing = await t.fetch('/nowhere');
    expect(missing.status).toBe(404);
    expect((await json(missing)).error.code).toBe('route_not_found');
    const rebound = await t.fetch('/greet/x', { headers: { host: 'evil.example' } });
    expect(rebound.status).toBe(403);
    expect((await json(rebound)).error.code).toBe('host_not_allowed');
  });

  it('captures the request log lines', () => {
    expect(t.logs.some((l) => l.msg === 'request' && l.route === '/greet/:name' && l.status === 200)).toBe(true);
  });
});

describe('createTestApp with built-ins and auth', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      plugins: ['rbac', greeter],
      manifest: { auth: { provider: 'rbac' }, listeners: [{ name: 'main', port: 0, plugins: ['rbac', 'greeter'], auth: true }] },
    });
  });
  afterAll(() => t?.close());

  it('runs authentication: a non-public route without a key is 401 missing_api_key', async () => {
    const res = await t.fetch('/v1/system');
    expect(res.status).toBe(401);
    expect((await json(res)).error.code).toBe('missing_api_key');
    expect((await t.fetch('/greet/bo')).status).toBe(200);
  });
});

describe('createTestApp start-up errors', () => {
  it('refuses a definition that takes a built-in name: plugin_name_conflict', async () => {
    const impostor = definePlugin({ name: 'rbac', version: '9.0.0', setup() {} });
    await expect(createTestApp({ plugins: [impostor] })).rejects.toMatchObject({ code: 'plugin_name_conflict', plugin: 'rbac' });
  });

  it('loads it when the entry says "override": true', async () => {
    const replacement = definePlugin({
      name: 'rbac',
      version: '9.0.0',
      setup(ctx) {
        ctx.routes.add({ method: 'GET', path: '/who', permission: 'public', handler: () => ({ me: 'replacement' }) });
      },
    });
    const t = await createTestApp({ plugins: [replacement], manifest: { plugins: { rbac: { override: true } } } });
    try {
      expect(await json(await t.fetch('/who'))).toEqual({ ok: true, me: 'replacement' });
    } finally {
      await t.close();
    }
  });

  it('a duplicate metric name names both plugins', async () => {
    const counting = (name: string) =>
      definePlugin({
        name,
        version: '1.0.0',
        setup(ctx) {
          ctx.metrics.counter({ name: 'notes_created_total', help: 'Notes created.' });
        },
      });
    await expect(createTestApp({ plugins: [counting('notes'), counting('memos')] })).rejects.toMatchObject({
      code: 'plugin_metric_conflict',
      plugin: 'memos',
      message: expect.stringContaining('plugin "notes" already registered it'),
      details: { metric: 'notes_created_total', registeredBy: 'notes', plugin: 'memos' },
    });
  });
});
