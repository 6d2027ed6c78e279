import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { App } from '../app.js';
import { createLogger } from '../logger.js';
import { resolveManifest } from '../manifest.js';
import type { ProvidedPlugin } from '../plugin-loader.js';
import type { PluginDefinition } from '../plugin-types.js';

export interface CreateTestAppOptions {
  /** The plugins to load: a built-in's name (`'search'`) or a definition imported from a plugin's module. */
  plugins: ReadonlyArray<string | PluginDefinition<any>>;
  /** Each plugin's options, by plugin name (validated by the plugin's schema, as from a manifest). */
  options?: Record<string, Record<string, unknown>>;
  /**
   * The rest of a manifest (`listeners`, `auth`, `limits`, `jobs`, `egress`, more `plugins` entries
   * with `module`). Default listeners: one named `main` on 127.0.0.1, port 0, serving every plugin.
   */
  manifest?: Record<string, unknown>;
  /** Where relative `module` paths in `manifest.plugins` resolve from; default the working directory. */
  dir?: string;
  /** The LMDB directory; default a new temporary one that `close()` deletes. */
  dataDir?: string;
  /** Also bind the listeners' ports, for clients that need a socket (`url()`); default false. */
  listen?: boolean;
  /** Level of the captured log lines (`logs`); default `info`. */
  logLevel?: string;
}

export interface TestFetchInit extends RequestInit {
  /** The listener to send to; default the first. */
  listener?: string;
}

export interface TestApp {
  /**
   * Send a request through a listener's whole pipeline (host check, auth, throttle, validation,
   * handler, error body) without a socket. `path` is the path and query (`/hello?x=1`).
   */
  fetch(path: string, init?: TestFetchInit): Promise<Response>;
  /** The running app (`app.log`, `app.metrics`, `app.container`, `app.system()`). */
  app: App;
  /** The store directory. */
  dataDir: string;
  /** Every log line written so far, parsed. */
  logs: Array<Record<string, unknown>>;
  /** The base URL of a bound listener (only with `listen: true`). */
  url(listener?: string): string;
  /** Stop the app (stop hooks, store closed) and delete the temporary store. */
  close(): Promise<void>;
}

/**
 * A Tessera app for a plugin's tests, built the way a manifest would build it: the plugins are
 * checked, set up in dependency order on a temporary store and started, and `fetch` runs requests
 * through the real listener pipeline. No port is bound unless `listen` is true.
 *
 *   import plugin from '../index.js';
 *   const t = await createTestApp({ plugins: [plugin], options: { notes: { greeting: 'hi' } } });
 *   const res = await t.fetch('/hello');
 *   await t.close();
 */
export async function createTestApp(input: CreateTestAppOptions): Promise<TestApp> {
  const extra = input.manifest ?? {};
  const extraPlugins = (extra.plugins ?? {}) as Record<string, Record<string, unknown>>;
  const provided = new Map<string, ProvidedPlugin>();
  const plugins: Record<string, Record<string, unknown>> = { ...extraPlugins };
  for (const plugin of input.plugins) {
    const name = typeof plugin === 'string' ? plugin : plugin?.name;
    if (typeof name !== 'string' || name === '')
      throw new TypeError('createTestApp: each of "plugins" is a built-in name or a definePlugin() object with a name');
    if (typeof plugin !== 'string') provided.set(name, { definition: plugin, source: `(plugin "${name}" given to createTestApp)` });
    plugins[name] = { ...extraPlugins[name] };
  }
  for (const [name, options] of Object.entries(input.options ?? {})) {
    if (!(name in plugins)) throw new TypeError(`createTestApp: options are given for "${name}", which is not among the plugins`);
    plugins[name] = { ...plugins[name], options };
  }
  const listeners = (extra.listeners as unknown[] | undefined) ?? [{ name: 'main', port: 0, plugins: Object.keys(plugins) }];
  const dataDir = input.dataDir ?? mkdtempSync(path.join(tmpdir(), 'tessera-test-app-'));
  const ownsDataDir = input.dataDir === undefined;
  const logs: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line.trim() !== '') logs.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  let app: App | undefined;
  try {
    const manifest = resolveManifest({ name: 'test', ...extra, listeners, plugins }, { file: '(createTestApp)', dir: input.dir ?? process.cwd(), dataDir });
    app = await App.create(manifest, { logger: createLogger({ level: input.logLevel ?? 'info', destination }), plugins: provided });
    await app.start({ listen: input.listen === true });
  } catch (err) {
    await app?.stop();
    if (ownsDataDir) rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  const running = app;
  const listenerNamed = (name: string | undefined): App['listeners'][number] => {
    const found = name === undefined ? running.listeners[0] : running.listeners.find((l) => l.name === name);
    if (!found) throw new Error(`createTestApp: no listener named "${name}" (listeners: ${running.listeners.map((l) => l.name).join(', ')})`);
    return found;
  };
  return {
    app: running,
    dataDir,
    logs,
    fetch(requestPath, init = {}) {
      const { listener: listenerName, ...requestInit } = init;
      const listener = listenerNamed(listenerName);
      const host = listener.config.host.includes(':') ? `[${listener.config.host}]` : listener.config.host;
      return listener.fetch(new Request(new URL(requestPath, `http://${host}:${listener.address.port}`), requestInit));
    },
    url(name) {
      if (input.listen !== true) throw new Error('createTestApp: url() needs { listen: true }; without it, use fetch()');
      return listenerNamed(name).address.url;
    },
    async close() {
      await running.stop();
      if (ownsDataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
