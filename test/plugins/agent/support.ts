import { createTestApp, json, repoRoot, type TestApp } from '../../helpers/app.js';

export interface AgentApp extends TestApp {
  base: string;
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any; headers: Headers }>;
}

/** The agent plugin alone on its listener (auth off on loopback: tenant `default`). */
export async function startAgent(
  options: Record<string, unknown> = {},
  extra: { dataDir?: string; plugins?: Record<string, unknown>; listenerPlugins?: string[]; manifest?: Record<string, unknown> } = {},
): Promise<AgentApp> {
  const t = await createTestApp(
    {
      ...extra.manifest,
      listeners: [{ name: 'agent', port: 0, plugins: extra.listenerPlugins ?? ['agent'] }],
      plugins: { search: {}, ...extra.plugins, agent: { options } },
    },
    { ...(extra.dataDir ? { dataDir: extra.dataDir } : {}), dir: repoRoot },
  );
  const base = t.url('agent');
  return Object.assign(t, {
    base,
    async call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: await json(res), headers: res.headers };
    },
  });
}
