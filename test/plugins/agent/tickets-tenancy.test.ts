import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { App } from '../../../runtime/app.js';
import { createLogger } from '../../../runtime/logger.js';
import { resolveManifest } from '../../../runtime/manifest.js';
import { defaultWorkspacesDir } from '../../../plugins/agent/part2.js';
import { segment } from '../../../plugins/agent/repos/workspaces.js';
import { repoRoot, tempDir } from '../../helpers/app.js';
import { diffOf, scriptProvider, type TicketScript } from './ticket-support.js';
import { makeRepo } from './git-fixture.js';
import { startProviderServer, type ModelListServer } from './provider-server.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// Ticket jobs, their records, provider settings and dead letters belong to the tenant of the key.
describe('ticket jobs between tenants (rbac keys, X-Tenant)', () => {
  const dataDir = path.join(tempDir(), 'data');
  const fx = makeRepo('acme', 'widget', {
    'calc/ops.py': 'def add(a, b):\n    return a - b\n',
    'tests/test_ops.py': 'from calc.ops import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n',
  });
  let app: App;
  let provider: ModelListServer;
  const keys = new Map<string, { secret: string; userId: string }>();
  const scripts = new Map<string, TicketScript>();
  let base = '';
  const call = async (tenant: string, method: string, p: string, body?: unknown) => {
    const res = await fetch(`${base}${p}`, {
      method,
      headers: { authorization: `Bearer ${keys.get(tenant)!.secret}`, 'x-tenant': tenant, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  const waitFinal = async (tenant: string, id: string) => {
    for (let i = 0; i < 600; i++) {
      const job = (await call(tenant, 'GET', `/api/v1/jobs/${id}`)).body.job;
      if (['completed', 'failed', 'cancelled'].includes(job?.state)) return job;
      await sleep(100);
    }
    throw new Error(`job ${id} did not finish`);
  };

  beforeAll(async () => {
    provider = await startProviderServer();
    scriptProvider(provider, scripts);
    scripts.set('T-1', {
      triage: [{ actionable: true, role: 'backend-python', summary: 's' }],
      patches: [diffOf(fx.work, { 'calc/ops.py': 'def add(a, b):\n    return a + b\n' })],
    });
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _e, done) {
        lines.push(...String(chunk).split('\n'));
        done();
      },
    });
    const manifest = resolveManifest(
      {
        name: 'tickets-tenancy',
        auth: { provider: 'rbac' },
        listeners: [
          { name: 'agent', port: 0, plugins: ['agent'] },
          { name: 'hub', port: 0, plugins: ['rbac'] },
        ],
        plugins: {
          search: {},
          graph: {},
          rbac: {},
          agent: { options: { baseUrl: provider.baseUrl, reposRoot: fx.reposRoot, workspaces: { refreshSeconds: 0 } } },
        },
      },
      { file: '(tickets tenancy)', dir: repoRoot, dataDir },
    );
    app = await App.create(manifest, { logger: createLogger({ level: 'info', destination: sink }) });
    await app.start();
    const superKey = lines.map((l) => /tsk_[0-9A-Za-z]+/.exec(l)?.[0]).find((k) => k !== undefined)!;
    const hub = app.url('hub');
    base = app.url('agent');
    for (const tenant of ['tenant-a', 'tenant-b']) {
      const asSuper = { 'x-api-key': superKey, 'x-tenant': tenant, 'content-type': 'application/json' };
      const user = await fetch(`${hub}/hub/rbac/users`, {
        method: 'POST',
        headers: asSuper,
        body: JSON.stringify({ name: `${tenant}-admin`, roles: ['admin'] }),
      });
      const userId = ((await user.json()) as { user: { id: string } }).user.id;
      const key = await fetch(`${hub}/hub/rbac/keys`, { method: 'POST', headers: asSuper, body: JSON.stringify({ name: `${tenant} key`, userId }) });
      keys.set(tenant, { secret: ((await key.json()) as { secret: string }).secret, userId });
    }
  });
  afterAll(async () => {
    await app?.stop();
    await provider?.close();
  });

  it("keeps each tenant's jobs, provider and dead letters to itself, and the same ticket id apart", async () => {
    expect((await call('tenant-a', 'POST', '/api/v1/models/config', { apiKey: 'sk-tenant-a-0001' })).status).toBe(200);
    const ticket = { ticket_id: 'T-1', repo_name: 'acme/widget', title: 'add subtracts', description: 'add(2, 3) is -1' };
    const a = await call('tenant-a', 'POST', '/api/v1/tickets/webhook', ticket);
    const b = await call('tenant-b', 'POST', '/api/v1/tickets/webhook', ticket);
    expect([a.status, b.status, a.body.created, b.body.created]).toEqual([202, 202, true, true]);
    expect(a.body.jobId).not.toBe(b.body.jobId);
    const [ja, jb] = [await waitFinal('tenant-a', a.body.jobId), await waitFinal('tenant-b', b.body.jobId)];
    expect(ja.state).toBe('completed');
    // Tenant b set no provider: tenant a's key is not used for it.
    expect([jb.state, jb.error.code]).toEqual(['failed', 'provider_not_configured']);

    for (const [me, other] of [
      ['tenant-a', b.body.jobId],
      ['tenant-b', a.body.jobId],
    ] as const) {
      expect((await call(me, 'GET', `/api/v1/jobs/${other}`)).body.error.code).toBe('job_not_found');
      expect((await call(me, 'POST', `/api/v1/jobs/${other}/cancel`)).status).toBe(404);
      expect((await call(me, 'POST', `/api/v1/jobs/${other}/answers`, { answers: [{ questionId: 'q', text: 'x' }] })).status).toBe(404);
    }
    expect((await call('tenant-a', 'GET', '/api/v1/jobs')).body.jobs.map((j: any) => j.id)).toEqual([a.body.jobId]);
    expect((await call('tenant-b', 'GET', '/api/v1/jobs')).body.jobs.map((j: any) => j.id)).toEqual([b.body.jobId]);
    let dlqB: any[] = [];
    for (let i = 0; i < 50 && dlqB.length === 0; i++) {
      dlqB = (await call('tenant-b', 'GET', '/api/v1/telemetry/dlq')).body.records;
      await sleep(50);
    }
    expect(dlqB.map((r) => r.error.code)).toEqual(['provider_not_configured']);
    expect((await call('tenant-a', 'GET', '/api/v1/telemetry/dlq')).body.records).toEqual([]);
    const events = (await call('tenant-a', 'GET', '/api/v1/telemetry/events?kind=ticket.*&limit=1000')).body.events;
    expect(new Set(events.map((e: any) => e.subject))).toEqual(new Set([a.body.jobId]));

    // Each tenant's job worked in its own 0700 workspace under the key's user.
    const root = defaultWorkspacesDir(dataDir);
    const dir = path.join(root, segment('tenant-a'), segment(keys.get('tenant-a')!.userId), segment('acme/widget'));
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(readdirSync(path.join(root, segment('tenant-a')))).toEqual([segment(keys.get('tenant-a')!.userId)]);
  });
});
