import { existsSync, statSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultWorkspacesDir } from '../../../plugins/agent/part2.js';
import { Workspaces, segment } from '../../../plugins/agent/repos/workspaces.js';
import { tempDir } from '../../helpers/app.js';
import { ForgeServer } from './forge-server.js';
import { makeRepo, pythonProject, type Fixture } from './git-fixture.js';
import { startAgent, type AgentApp } from './support.js';

describe('agent repositories', () => {
  let t: AgentApp;
  let fx: Fixture;
  let dataDir: string;
  beforeAll(async () => {
    fx = makeRepo('acme', 'widget', pythonProject);
    dataDir = path.join(tempDir(), 'data');
    t = await startAgent({ baseUrl: 'http://127.0.0.1:9/api/v1', reposRoot: fx.reposRoot }, { dataDir });
  });
  afterAll(() => t.stop());

  it('lists the file tree of a repository under reposRoot with sizes, extensions and languages', async () => {
    const { status, body } = await t.call('GET', '/api/v1/repos/acme%2Fwidget/files');
    expect(status).toBe(200);
    expect(body.repo).toBe('acme/widget');
    expect(body.branch).toBe('main');
    expect(body.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(body.files).toEqual(
      Object.keys(pythonProject)
        .sort()
        .map((p) => ({
          path: p,
          size: Buffer.byteLength(pythonProject[p]!),
          extension: p.split('.').pop(),
          language: { py: 'python', ts: 'typescript', js: 'javascript', md: 'markdown' }[p.split('.').pop()!],
        })),
    );
    expect(body.total).toBe(6);
    expect(body.languages).toEqual({ python: 3, typescript: 1, javascript: 1, markdown: 1 });
  });

  it('answers 422 repository_unknown for a repository that is not there or not owner/repo', async () => {
    for (const id of ['acme%2Fnothing', 'acme', 'acme%2F..', 'a%2Fb%2Fc']) {
      const { status, body } = await t.call('GET', `/api/v1/repos/${id}/files`);
      expect(status, id).toBe(422);
      expect(body.error.code).toBe('repository_unknown');
    }
  });

  it('clones into a per-tenant-and-user workspace whose every level is 0700', async () => {
    const root = defaultWorkspacesDir(dataDir);
    const levels = [root, path.join(root, segment('default')), path.join(root, segment('default'), segment('anonymous'))];
    levels.push(path.join(levels[2]!, segment('acme/widget')));
    for (const dir of levels) expect((statSync(dir).mode & 0o777).toString(8), dir).toBe('700');
    expect(existsSync(path.join(levels[3]!, 'repo', '.git'))).toBe(true);
  });

  it('removes workspaces unused past the retention and keeps the others', () => {
    const ws = new Workspaces(path.join(tempDir(), 'ws'), 3_600_000);
    const old = ws.open('t1', 'u1', 'acme/widget');
    const fresh = ws.open('t1', 'u2', 'acme/widget');
    ws.touch(old, new Date(Date.now() - 2 * 3_600_000));
    expect(ws.sweep()).toEqual([old]);
    expect(existsSync(old)).toBe(false);
    expect(existsSync(path.dirname(old))).toBe(false);
    expect(existsSync(fresh)).toBe(true);
    utimesSync(path.join(fresh, '.last-used'), new Date(0), new Date(0));
    expect(ws.sweep()).toEqual([fresh]);
    expect(existsSync(path.dirname(path.dirname(fresh)))).toBe(false);
  });

  it('keeps tenants and users apart: each gets its own clone directory', () => {
    const ws = new Workspaces(path.join(tempDir(), 'ws'), 3_600_000);
    const dirs = new Set([ws.open('a', 'u', 'acme/w'), ws.open('b', 'u', 'acme/w'), ws.open('a', 'v', 'acme/w'), ws.open('a/..', 'u', 'acme/w')]);
    expect(dirs.size).toBe(4);
    for (const d of dirs) expect(d.startsWith(ws.root + path.sep)).toBe(true);
  });
});

describe('agent repositories from the forge', () => {
  let t: AgentApp;
  let forge: ForgeServer;
  beforeAll(async () => {
    const fx = makeRepo('acme', 'remote', pythonProject);
    forge = await new ForgeServer('ghp_clone_token').start();
    forge.addRepo('acme/remote', fx.bare);
    t = await startAgent({ baseUrl: 'http://127.0.0.1:9/api/v1', forge: { baseUrl: forge.url, token: 'ghp_clone_token' } });
  });
  afterAll(async () => {
    await t.stop();
    await forge.stop();
  });

  it("clones a repository that is not under reposRoot from the forge's clone_url, and 422s one the forge does not have", async () => {
    const { status, body } = await t.call('GET', '/api/v1/repos/acme%2Fremote/files');
    expect(status).toBe(200);
    expect(body.files.map((f: { path: string }) => f.path)).toEqual(Object.keys(pythonProject).sort());
    expect(forge.requests[0]).toMatchObject({ method: 'GET', path: '/repos/acme/remote', auth: 'Bearer ghp_clone_token' });
    const missing = await t.call('GET', '/api/v1/repos/acme%2Fabsent/files');
    expect([missing.status, missing.body.error.code]).toEqual([422, 'repository_unknown']);
  });
});
