import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { createTestApp, json, tempDir, type TestApp } from '../../helpers/app.js';
import { bootstrapLine } from '../rbac/helpers.js';

export interface Fleet {
  t: TestApp;
  /** The control plane's base URL. */
  console: string;
  search: string;
  crawler: string;
  scanner: string;
  /** The bootstrap superadmin key when auth is on. */
  adminKey?: string;
  /** The folder the scanner may read (its only root). */
  root: string;
  stop(): Promise<void>;
}

/**
 * The default manifest's fleet on ports chosen by the OS: search, control (console, and rbac for
 * sign-in when auth is on), crawler and scanner, each on its own listener; `graph` adds the
 * knowledge graph to the search listener, as the default manifest does.
 */
export async function startFleet(
  options: { auth?: boolean; graph?: boolean; extraListener?: Record<string, unknown>; console?: Record<string, unknown> } = {},
): Promise<Fleet> {
  const root = tempDir('tessera-console-root-');
  mkdirSync(path.join(root, 'docs'));
  const auth = options.auth ?? false;
  const t = await createTestApp({
    listeners: [
      { name: 'search', port: 0, plugins: options.graph ? ['search', 'graph'] : ['search'] },
      { name: 'control', port: 0, plugins: auth ? ['console', 'rbac'] : ['console'] },
      { name: 'crawler', port: 0, plugins: ['crawler'] },
      { name: 'scanner', port: 0, plugins: ['scanner'] },
      ...(options.extraListener ? [options.extraListener] : []),
    ],
    plugins: {
      search: {},
      console: options.console ? { options: options.console } : {},
      crawler: { options: { allowPrivateAddresses: true } },
      scanner: { options: { roots: [root] } },
      ...(auth ? { rbac: {} } : {}),
      ...(options.graph ? { graph: {} } : {}),
    },
    ...(auth ? { auth: { provider: 'rbac' } } : {}),
  });
  const adminKey = auth ? (bootstrapLine(t.logs)?.apiKey as string) : undefined;
  return {
    t,
    console: t.url('control'),
    search: t.url('search'),
    crawler: t.url('crawler'),
    scanner: t.url('scanner'),
    ...(adminKey ? { adminKey } : {}),
    root,
    stop: () => t.stop(),
  };
}

export async function send(
  url: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string>; raw?: string | Uint8Array | FormData } = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const headers: Record<string, string> = { ...init.headers };
  let body: RequestInit['body'];
  if (init.raw !== undefined) body = init.raw as RequestInit['body'];
  else if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(url, { method: init.method ?? (body === undefined ? 'GET' : 'POST'), headers, body });
  return { status: res.status, body: await json(res), headers: res.headers };
}
