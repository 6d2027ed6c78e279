import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { App } from '../../../runtime/app.js';
import { createLogger } from '../../../runtime/logger.js';
import { resolveManifest } from '../../../runtime/manifest.js';
import { repoRoot, tempDir } from '../../helpers/app.js';
import { makeRepo, pythonProject } from './git-fixture.js';

// Playbook configuration and story jobs belong to the tenant of the key; the configuration survives a restart.
describe('playbooks per tenant (rbac keys)', () => {
  const dataDir = path.join(tempDir(), 'data');
  const fx = makeRepo('acme', 'widget', pythonProject);
  let app: App | undefined;
  let superKey = '';
  const keys = new Map<string, string>();
  const call = async (key: string, method: string, p: string, body?: unknown) => {
    const res = await fetch(`${app!.url('agent')}${p}`, {
      method,
      headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  const start = async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _e, done) {
        lines.push(...String(chunk).split('\n'));
        done();
      },
    });
    const manifest = resolveManifest(
      {
        name: 'agent-playbooks-tenancy',
        auth: { provider: 'rbac' },
        listeners: [
          { name: 'agent', port: 0, plugins: ['agent'] },
          { name: 'hub', port: 0, plugins: ['rbac'] },
        ],
        plugins: { search: {}, graph: {}, rbac: {}, agent: { options: { baseUrl: 'http://127.0.0.1:9/api/v1', reposRoot: fx.reposRoot } } },
      },
      { file: '(playbooks tenancy)', dir: repoRoot, dataDir },
    );
    app = await App.create(manifest, { logger: createLogger({ level: 'info', destination: sink }) });
    await app.start();
    superKey ||= lines.map((l) => /tsk_[0-9A-Za-z]+/.exec(l)?.[0]).find((k) => k !== undefined)!;
  };

  beforeAll(async () => {
    await start();
    const hub = app!.url('hub');
    for (const [tenant, role] of [
      ['tenant-a', 'admin'],
      ['tenant-b', 'admin'],
      ['tenant-a', 'viewer'],
    ] as const) {
      const asSuper = { 'x-api-key': superKey, 'x-tenant': tenant, 'content-type': 'application/json' };
      const user = await fetch(`${hub}/hub/rbac/users`, {
        method: 'POST',
        headers: asSuper,
        body: JSON.stringify({ name: `${tenant}-${role}`, roles: [role] }),
      });
      const userId = ((await user.json()) as { user: { id: string } }).user.id;
      const key = await fetch(`${hub}/hub/rbac/keys`, { method: 'POST', headers: asSuper, body: JSON.stringify({ name: `${tenant} ${role}`, userId }) });
      keys.set(`${tenant}:${role}`, ((await key.json()) as { secret: string }).secret);
    }
  });
  afterAll(() => app?.stop());

  it("keeps each tenant's configuration apart, lets only a manager change it, and keeps it across a restart", async () => {
    const a = keys.get('tenant-a:admin')!;
    const b = keys.get('tenant-b:admin')!;
    const set = await call(a, 'POST', '/api/v1/playbooks/config', { autoMerge: { enabled: true }, listener: { repositories: ['acme/*'] } });
    expect(set.status).toBe(200);
    expect((await call(b, 'GET', '/api/v1/playbooks/config')).body).toMatchObject({ defaults: true, config: { autoMerge: { enabled: false } } });
    const viewer = keys.get('tenant-a:viewer')!;
    const refused = await call(viewer, 'POST', '/api/v1/playbooks/config', { autoMerge: { enabled: false } });
    expect([refused.status, refused.body.error.code]).toEqual([403, 'permission_denied']);
    const story = { event: 'assigned', story: { id: 'PROJ-1', repo: 'acme/widget', title: 'x' } };
    expect((await call(viewer, 'POST', '/api/v1/playbooks/story-webhook', story)).status).toBe(403);

    await app!.stop();
    app = undefined;
    await start();
    const after = await call(a, 'GET', '/api/v1/playbooks/config');
    expect(after.body).toMatchObject({ defaults: false, config: { autoMerge: { enabled: true }, listener: { repositories: ['acme/*'] } } });
    expect(after.body.config).toEqual(set.body.config);
    const started = await call(a, 'POST', '/api/v1/playbooks/story-webhook', story);
    const other = await call(b, 'POST', '/api/v1/playbooks/story-webhook', story);
    expect([started.status, other.status]).toEqual([202, 202]);
    expect(other.body.jobId).not.toBe(started.body.jobId);
    const again = await call(a, 'POST', '/api/v1/playbooks/story-webhook', story);
    expect([again.body.jobId, again.body.created]).toEqual([started.body.jobId, false]);
  });
});
