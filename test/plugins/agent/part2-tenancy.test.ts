import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { App } from '../../../runtime/app.js';
import { createLogger } from '../../../runtime/logger.js';
import { resolveManifest } from '../../../runtime/manifest.js';
import { defaultWorkspacesDir } from '../../../plugins/agent/part2.js';
import { segment } from '../../../plugins/agent/repos/workspaces.js';
import { repoRoot, tempDir } from '../../helpers/app.js';
import { makeRepo, pythonProject } from './git-fixture.js';

// Repositories, workspaces and parses belong to the tenant (and user) of the key that asked.
describe('agent part 2 tenancy (rbac keys)', () => {
  const dataDir = path.join(tempDir(), 'data');
  const fx = makeRepo('acme', 'widget', pythonProject);
  let app: App;
  const keys = new Map<string, { secret: string; userId: string }>();
  let base = '';
  const call = async (tenant: string, p: string, headers: Record<string, string> = {}, method = 'GET') => {
    const res = await fetch(`${base}${p}`, { method, headers: { 'x-api-key': keys.get(tenant)!.secret, ...headers } });
    return { status: res.status, body: (await res.json()) as any };
  };

  beforeAll(async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _e, done) {
        lines.push(...String(chunk).split('\n'));
        done();
      },
    });
    const manifest = resolveManifest(
      {
        name: 'agent-tenancy',
        auth: { provider: 'rbac' },
        listeners: [
          { name: 'agent', port: 0, plugins: ['agent', 'search', 'graph'] },
          { name: 'hub', port: 0, plugins: ['rbac'] },
        ],
        plugins: { search: {}, graph: {}, rbac: {}, agent: { options: { baseUrl: 'http://127.0.0.1:9/api/v1', reposRoot: fx.reposRoot } } },
      },
      { file: '(agent tenancy)', dir: repoRoot, dataDir },
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
  afterAll(() => app?.stop());

  it("clones into each tenant's own 0700 workspace under the key's user", async () => {
    for (const tenant of ['tenant-a', 'tenant-b']) expect((await call(tenant, '/api/v1/repos/acme%2Fwidget/files')).status).toBe(200);
    const root = defaultWorkspacesDir(dataDir);
    expect(readdirSync(root).sort()).toEqual([segment('tenant-a'), segment('tenant-b')].sort());
    for (const tenant of ['tenant-a', 'tenant-b']) {
      expect(readdirSync(path.join(root, segment(tenant)))).toEqual([segment(keys.get(tenant)!.userId)]);
      const dirs = [segment(keys.get(tenant)!.userId)];
      expect(statSync(path.join(root, segment(tenant), dirs[0]!)).mode & 0o777).toBe(0o700);
      expect(existsSync(path.join(root, segment(tenant), dirs[0]!, segment('acme/widget'), 'repo', '.git'))).toBe(true);
    }
  });

  it("keeps each tenant's parses apart: another tenant's graph is not reused", async () => {
    const a = await call('tenant-a', '/api/v1/repos/acme%2Fwidget/knowledge-graph?full=true');
    expect(a.body.stats).toMatchObject({ parsedFiles: 5, reusedFiles: 0 });
    const again = await call('tenant-a', '/api/v1/repos/acme%2Fwidget/knowledge-graph?full=true');
    expect(again.body.stats).toMatchObject({ parsedFiles: 0, reusedFiles: 5 });
    // Tenant A's code index and graph do not exist for tenant B.
    expect((await call('tenant-b', '/v1/indexes/code--acme--widget')).status).toBe(404);
    expect((await call('tenant-b', '/v1/indexes/code--acme--widget/graph/stats')).status).toBe(404);
    const b = await call('tenant-b', '/api/v1/repos/acme%2Fwidget/knowledge-graph?full=true');
    expect(b.body.stats).toMatchObject({ parsedFiles: 5, reusedFiles: 0 });
    expect(b.body.index).toBe('code--acme--widget');
  });

  it("keeps each tenant's code index apart: dropping one leaves the other's declarations and graph", async () => {
    expect((await call('tenant-a', '/v1/indexes/code--acme--widget', {}, 'DELETE')).status).toBe(200);
    expect((await call('tenant-a', '/v1/indexes/code--acme--widget')).status).toBe(404);
    expect((await call('tenant-b', '/v1/indexes/code--acme--widget')).body.index.docCount).toBe(20);
    expect((await call('tenant-b', '/v1/indexes/code--acme--widget/graph/stats')).body.stats.entities).toBe(20);
    const b = await call('tenant-b', '/api/v1/repos/acme%2Fwidget/knowledge-graph?full=true');
    expect(b.body.stats).toMatchObject({ parsedFiles: 0, reusedFiles: 5 });
    expect(b.body.declarations).toHaveLength(20);
    const a = await call('tenant-a', '/api/v1/repos/acme%2Fwidget/knowledge-graph?full=true');
    expect(a.body.stats).toMatchObject({ parsedFiles: 5, reusedFiles: 0 });
  });

  it("refuses an X-Tenant other than the key's tenant", async () => {
    const r = await call('tenant-a', '/api/v1/repos/acme%2Fwidget/files', { 'x-tenant': 'tenant-b' });
    expect(r.status).toBe(403);
  });
});
