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
      plugins: { search: {}, graph: {}, ...extra.plugins, agent: { options } },
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

/**
 * The telemetry events a query returns, once at least `atLeast` are there: the gateway appends its
 * events off the call's path, so they become readable just after the answer.
 */
export async function eventsOf(t: AgentApp, query: string, atLeast = 1, timeoutMs = 5000): Promise<any[]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const events = (await t.call('GET', `/api/v1/telemetry/events?limit=1000&${query}`)).body.events as any[];
    if (events.length >= atLeast || Date.now() > until) return events;
    await new Promise((r) => setTimeout(r, 20));
  }
}
