import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, json, tempDir, type TestApp } from '../helpers/app.js';

const greeter = { module: './plugins/greeter/index.js' };
const consumer = { module: './plugins/consumer/index.js' };

describe('third-party plugins', () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.stop();
    t = undefined;
  });

  it('loads a plugin by path that serves a route, shares a DI service with a dependent, uses its store and runs onStop', async () => {
    const marker = path.join(tempDir(), 'stopped.txt');
    t = await createTestApp({
      listeners: [{ name: 'main', port: 0, plugins: ['greeter', 'consumer'] }],
      plugins: { greeter: { ...greeter, options: { greeting: 'Hello', stopMarker: marker } }, consumer: { ...consumer, options: { stopMarker: marker } } },
    });
    const base = t.url();
    expect(await json(await fetch(`${base}/greet/Ada`))).toEqual({ ok: true, message: 'Hello, Ada!', count: 1 });
    expect(await json(await fetch(`${base}/greet/Ada`))).toEqual({ ok: true, message: 'Hello, Ada!', count: 2 });
    expect(await json(await fetch(`${base}/welcome/Grace`))).toEqual({ ok: true, text: 'Hello, Grace!' });
    await t.stop();
    t = undefined;
    // Stop hooks run in reverse dependency order: the dependent first.
    expect(readFileSync(marker, 'utf8')).toBe('consumer stopped\ngreeter stopped\n');
  });

  it('keeps the store across a restart on the same data directory', async () => {
    const dataDir = tempDir();
    const manifest = { listeners: [{ name: 'main', port: 0, plugins: ['greeter'] }], plugins: { greeter } };
    t = await createTestApp(manifest, { dataDir });
    await fetch(`${t.url()}/greet/Linus`);
    await fetch(`${t.url()}/greet/Linus`);
    await t.stop();
    t = await createTestApp(manifest, { dataDir });
    expect((await json(await fetch(`${t.url()}/greet/Linus`))).count).toBe(3);
  });

  it('hides a provided service from plugins that do not depend on its provider', async () => {
    t = await createTestApp({
      listeners: [{ name: 'main', port: 0, plugins: ['outsider'] }],
      plugins: { greeter, outsider: { module: './plugins/outsider/index.js' } },
    });
    expect(await json(await fetch(`${t.url()}/outsider/can-see-greeter`))).toEqual({ ok: true, visible: false });
  });

  it('wraps a throw from setup as plugin_setup_failed carrying the plugin name and cause', async () => {
    const err = await createTestApp({
      listeners: [{ name: 'main', port: 0, plugins: [] }],
      plugins: { faulty: { module: './plugins/faulty/index.js', options: { failIn: 'setup' } } },
    }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'plugin_setup_failed', plugin: 'faulty', message: '[plugin faulty] setup() failed: cannot reach the disk' });
    expect((err as Error).cause).toBeInstanceOf(Error);
  });

  it('wraps a throw from onStart as plugin_start_failed and stops the plugins already started', async () => {
    const marker = path.join(tempDir(), 'stopped.txt');
    const err = await createTestApp({
      listeners: [{ name: 'main', port: 0, plugins: [] }],
      plugins: { greeter: { ...greeter, options: { stopMarker: marker } }, faulty: { module: './plugins/faulty/index.js', options: { failIn: 'start' } } },
    }).catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'plugin_start_failed',
      plugin: 'faulty',
      message: '[plugin faulty] onStart hook failed: port for the side channel is taken',
    });
    expect(readFileSync(marker, 'utf8')).toBe('greeter stopped\n');
  });

  it('refuses two routes with the same method and path on one listener', async () => {
    const err = await createTestApp({
      listeners: [{ name: 'main', port: 0, plugins: ['faulty'] }],
      plugins: { faulty: { module: './plugins/faulty/index.js', options: { duplicateRoute: true } } },
    }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'plugin_route_conflict', plugin: 'faulty' });
  });

  it('treats patterns that differ only in parameter names as the same route', async () => {
    const err = await createTestApp({
      listeners: [{ name: 'main', port: 0, plugins: ['faulty'] }],
      plugins: { faulty: { module: './plugins/faulty/index.js', options: { paramConflict: true } } },
    }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'plugin_route_conflict', plugin: 'faulty' });
    expect((err as Error).message).toContain('GET /faulty/:id is already served on listener "main" by plugin "faulty" (as /faulty/:key)');
  });

  it('resolves a plugin by npm package name from the manifest directory', async () => {
    // An installed package as far as Node is concerned: ESM-only, found through node_modules.
    const dir = tempDir();
    const pkg = path.join(dir, 'node_modules', 'tessera-plugin-hello');
    mkdirSync(pkg, { recursive: true });
    writeFileSync(
      path.join(pkg, 'package.json'),
      JSON.stringify({ name: 'tessera-plugin-hello', version: '1.0.0', type: 'module', exports: { '.': { import: './hello.js' } } }),
    );
    // A plugin is a plain object: a package can ship one without importing tessera at all.
    writeFileSync(
      path.join(pkg, 'hello.js'),
      `export default { name: 'hello', version: '1.0.0', setup(ctx) { ctx.routes.add({ method: 'GET', path: '/hello', permission: 'public', handler: () => ({ from: 'tessera-plugin-hello' }) }); } };\n`,
    );
    t = await createTestApp({ listeners: [{ name: 'main', port: 0, plugins: ['hello'] }], plugins: { hello: { module: 'tessera-plugin-hello' } } }, { dir });
    expect(await json(await fetch(`${t.url()}/hello`))).toEqual({ ok: true, from: 'tessera-plugin-hello' });
  });

  it('reports an unknown built-in plugin name with the list of built-ins', async () => {
    const err = await createTestApp({ listeners: [{ name: 'main', port: 0, plugins: [] }], plugins: { serach: {} } }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'plugin_module_not_found', plugin: 'serach' });
    expect((err as Error).message).toContain('No built-in plugin named "serach"');
  });
});
