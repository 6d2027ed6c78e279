import { Writable } from 'node:stream';
import { App } from '../../../runtime/app.js';
import { createLogger } from '../../../runtime/logger.js';
import { resolveManifest } from '../../../runtime/manifest.js';
import { repoRoot } from '../../helpers/app.js';

export interface TenantService {
  app: App;
  /** A request as `tenant`'s administrator (an rbac key with the `admin` role). */
  call(tenant: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** Polls `GET /api/v1/jobs/{id}` as `tenant` until the job is completed, failed or cancelled. */
  final(tenant: string, id: string, timeoutMs?: number): Promise<any>;
}

/**
 * The agent service with rbac (`auth: {provider: "rbac"}`) and an administrator key for each of
 * `tenants`: the agent on listener `agent`, rbac's hub on `hub`.
 */
export async function startTenantService(agentOptions: Record<string, unknown>, tenants: string[], dataDir: string): Promise<TenantService> {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _e, done) {
      lines.push(...String(chunk).split('\n'));
      done();
    },
  });
  const manifest = resolveManifest(
    {
      name: 'agent-tenants',
      auth: { provider: 'rbac' },
      listeners: [
        { name: 'agent', port: 0, plugins: ['agent'] },
        { name: 'hub', port: 0, plugins: ['rbac'] },
      ],
      plugins: { search: {}, graph: {}, rbac: {}, agent: { options: agentOptions } },
    },
    { file: '(agent tenants)', dir: repoRoot, dataDir },
  );
  const app = await App.create(manifest, { logger: createLogger({ level: 'info', destination: sink }) });
  await app.start();
  const superKey = lines.map((l) => /tsk_[0-9A-Za-z]+/.exec(l)?.[0]).find((k) => k !== undefined);
  if (!superKey) throw new Error('the rbac bootstrap key was not found in the start-up log');
  const hub = app.url('hub');
  const base = app.url('agent');
  const keys = new Map<string, string>();
  for (const tenant of tenants) {
    const asSuper = { 'x-api-key': superKey, 'x-tenant': tenant, 'content-type': 'application/json' };
    const user = await fetch(`${hub}/hub/rbac/users`, {
      method: 'POST',
      headers: asSuper,
      body: JSON.stringify({ name: `${tenant}-admin`, roles: ['admin'] }),
    });
    const userId = ((await user.json()) as { user: { id: string } }).user.id;
    const key = await fetch(`${hub}/hub/rbac/keys`, { method: 'POST', headers: asSuper, body: JSON.stringify({ name: `${tenant} key`, userId }) });
    keys.set(tenant, ((await key.json()) as { secret: string }).secret);
  }
  const call = async (tenant: string, method: string, p: string, body?: unknown) => {
    const res = await fetch(`${base}${p}`, {
      method,
      headers: { 'x-api-key': keys.get(tenant)!, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  const final = async (tenant: string, id: string, timeoutMs = 90_000) => {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const job = (await call(tenant, 'GET', `/api/v1/jobs/${id}`)).body.job;
      if (['completed', 'failed', 'cancelled'].includes(job?.state)) return job;
      if (Date.now() > end) throw new Error(`job ${id} did not finish: ${JSON.stringify(job?.timeline)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  return { app, call, final };
}
