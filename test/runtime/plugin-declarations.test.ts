import { describe, expect, it } from 'vitest';
import { App } from '../../runtime/app.js';
import { defineErrors } from '../../runtime/define-errors.js';
import { isTesseraError } from '../../runtime/errors.js';
import { createLogger } from '../../runtime/logger.js';
import { createTestApp, json, tempDir, testManifest } from '../helpers/app.js';

async function loadError(manifest: Record<string, unknown>): Promise<{ code: string; message: string; details: unknown }> {
  try {
    const app = await App.create(testManifest(manifest, tempDir()), { logger: createLogger({ level: 'silent' }) });
    await app.stop();
  } catch (err) {
    if (isTesseraError(err)) return { code: err.code, message: err.message, details: err.details };
    throw err;
  }
  throw new Error('the manifest loaded');
}

describe('permissions declared by plugins', () => {
  it('refuses to load a plugin whose route requires a permission nobody declares, naming route and permission', async () => {
    const error = await loadError({
      listeners: [{ name: 'main', port: 0, plugins: ['undeclared'] }],
      plugins: { undeclared: { module: './plugins/undeclared/index.js' } },
    });
    expect(error).toEqual({
      code: 'plugin_permission_undeclared',
      message:
        '[plugin undeclared] DELETE /notes requires permission "notes:purge", which no loaded plugin declares. Add {name: "notes:purge", description} to the "permissions" of the plugin that owns it.',
      details: { permission: 'notes:purge', route: 'DELETE /notes' },
    });
  });

  it('refuses two plugins declaring one permission', async () => {
    const error = await loadError({
      listeners: [{ name: 'main', port: 0, plugins: ['twin-a', 'twin-b'] }],
      plugins: { 'twin-a': { module: './plugins/twin-a/index.js' }, 'twin-b': { module: './plugins/twin-b/index.js' } },
    });
    expect(error).toMatchObject({ code: 'plugin_permission_conflict', details: { permission: 'twins:read', declaredBy: 'twin-a' } });
    expect(error.message).toContain('[plugin twin-b] Declares permission "twins:read", which plugin "twin-a" already declares.');
  });

  it('refuses a route added while serving with an undeclared permission, and accepts a declared one', async () => {
    const t = await createTestApp({
      listeners: [{ name: 'main', port: 0, plugins: ['catalogue'] }],
      plugins: { catalogue: { module: './plugins/catalogue/index.js' } },
    });
    try {
      const post = (body: object) =>
        fetch(`${t.url()}/routes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const refused = await post({ path: '/later', permission: 'later:read' });
      expect(refused.status).toBe(500);
      expect((await json(refused)).error.code).toBe('internal_error');
      expect(t.logs.find((l) => l.msg === 'unhandled error')).toMatchObject({ err: { code: 'plugin_permission_undeclared' } });
      expect(await json(await post({ path: '/later', permission: 'catalogue:read' }))).toEqual({ ok: true, added: '/later' });
      expect(await json(await fetch(`${t.url()}/later`))).toEqual({ ok: true, added: true });
    } finally {
      await t.stop();
    }
  });
});

describe('errors declared with defineErrors', () => {
  it('makes typed errors whose message is filled from the parameters, which also become the details', async () => {
    const t = await createTestApp({
      listeners: [{ name: 'main', port: 0, plugins: ['catalogue'] }],
      plugins: { catalogue: { module: './plugins/catalogue/index.js' } },
    });
    try {
      const missing = await fetch(`${t.url()}/shelves/top/items/42`);
      expect(missing.status).toBe(404);
      expect(await json(missing)).toEqual({
        ok: false,
        error: { code: 'item_not_found', message: 'No item "42" in shelf "top".', details: { shelf: 'top', id: '42' } },
      });
      const full = await fetch(`${t.url()}/shelves/full`, { method: 'POST' });
      expect(full.status).toBe(409);
      expect(await json(full)).toEqual({ ok: false, error: { code: 'shelf_full', message: 'The shelf is full.' } });
    } finally {
      await t.stop();
    }
  });

  it('answers a kernel error that reaches the runtime with its documented status: kernel_out_of_memory is 503', async () => {
    const t = await createTestApp({
      listeners: [{ name: 'main', port: 0, plugins: ['catalogue'] }],
      plugins: { catalogue: { module: './plugins/catalogue/index.js' } },
    });
    try {
      const res = await fetch(`${t.url()}/kernel-oom`);
      expect(res.status).toBe(503);
      expect(await json(res)).toEqual({ ok: false, error: { code: 'kernel_out_of_memory', message: 'shared kernel memory cannot grow past 16 MiB' } });
    } finally {
      await t.stop();
    }
  });

  it("checks codes and statuses when the table is made, and exposes each entry's doc line", () => {
    expect(() => defineErrors({ NotSnake: { status: 400, message: 'x', when: 'x' } })).toThrow('Error code "NotSnake" must be snake_case');
    expect(() => defineErrors({ fine: { status: 200, message: 'x', when: 'x' } })).toThrow('Error "fine" has status 200; use a 4xx or 5xx status');
    const errors = defineErrors({ too_big: { status: 413, message: 'Over {limit} bytes.', when: 'The thing is too big.' } });
    expect({ code: errors.too_big.code, status: errors.too_big.status, when: errors.too_big.when }).toEqual({
      code: 'too_big',
      status: 413,
      when: 'The thing is too big.',
    });
    const made = errors.too_big({ limit: 10 }, { details: { limit: 10, got: 12 } });
    expect(made.toJSON()).toEqual({ code: 'too_big', message: 'Over 10 bytes.', details: { limit: 10, got: 12 } });
    expect(errors.too_big.is(made)).toBe(true);
  });
});

describe('GET /v1/system', () => {
  it('describes plugins, listeners, jobs, store and kernel pool', async () => {
    const t = await createTestApp({
      listeners: [{ name: 'main', port: 0, plugins: ['worker', 'catalogue'] }],
      plugins: { worker: { module: './plugins/worker/index.js' }, catalogue: { module: './plugins/catalogue/index.js' } },
    });
    try {
      await fetch(`${t.url()}/schedules`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ id: 's', spec: { interval: '1h' }, jobName: 'tick' }),
      });
      const body = await json(await fetch(`${t.url()}/v1/system`));
      expect(body).toMatchObject({
        ok: true,
        name: 'test',
        version: expect.any(String),
        node: process.version,
        uptimeMs: expect.any(Number),
        listeners: [{ name: 'main', host: '127.0.0.1', port: expect.any(Number), url: t.url(), plugins: ['worker', 'catalogue'], auth: false }],
        jobs: { queued: 0, running: 0, schedules: 1 },
        store: { dir: t.dataDir, sizeBytes: expect.any(Number), formatVersion: 1 },
        kernels: { started: false },
      });
      expect(body.plugins.map((p: any) => [p.name, p.version, p.permissions])).toEqual([
        ['worker', '1.0.0', ['worker:use']],
        ['catalogue', '1.0.0', ['catalogue:read']],
      ]);
      expect(body.plugins[0].source).toMatch(/test\/fixtures\/plugins\/worker\/index\.js$/);
    } finally {
      await t.stop();
    }
  });
});
