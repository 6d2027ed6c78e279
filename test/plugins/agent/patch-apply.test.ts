import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultWorkspacesDir } from '../../../plugins/agent/part2.js';
import { patchBranch } from '../../../plugins/agent/patches/commit.js';
import { segment } from '../../../plugins/agent/repos/workspaces.js';
import { tempDir } from '../../helpers/app.js';
import { ForgeServer } from './forge-server.js';
import { git, gitRaw, makeRepo, pythonProject, type Fixture } from './git-fixture.js';
import { startAgent, type AgentApp } from './support.js';

const token = 'ghp_patch_apply_token';

describe('POST /api/v1/code/patch/apply', () => {
  let t: AgentApp;
  let fx: Fixture;
  let forge: ForgeServer;
  let dataDir: string;
  let goodDiff: string;
  const changed = pythonProject['calc/ops.py']!.replace('return a * b', 'return b * a');

  beforeAll(async () => {
    fx = makeRepo('acme', 'widget', pythonProject);
    forge = await new ForgeServer(token).start();
    forge.addRepo('acme/widget', fx.bare);
    process.env.TESSERA_TEST_FORGE_TOKEN = token;
    writeFileSync(path.join(fx.work, 'calc/ops.py'), changed);
    writeFileSync(path.join(fx.work, 'calc/more.py'), 'def more():\n    return 2\n');
    git(fx.work, 'add', '-A');
    goodDiff = gitRaw(fx.work, 'diff', '--cached');
    git(fx.work, 'reset', '-q', '--hard', 'HEAD');
    dataDir = path.join(tempDir(), 'data');
    t = await startAgent(
      {
        baseUrl: 'http://127.0.0.1:9/api/v1',
        reposRoot: fx.reposRoot,
        forge: { baseUrl: forge.url, tokenEnv: 'TESSERA_TEST_FORGE_TOKEN' },
        author: { name: 'Patch Bot', email: 'bot@example.com' },
        workspaces: { refreshSeconds: 0 },
      },
      { dataDir },
    );
  });
  afterAll(async () => {
    await t.stop();
    await forge.stop();
    delete process.env.TESSERA_TEST_FORGE_TOKEN;
  });

  const workspace = () => path.join(defaultWorkspacesDir(dataDir), segment('default'), segment('anonymous'), segment('acme/widget'), 'repo');
  const snapshot = () => ({
    workspaceRefs: git(workspace(), 'for-each-ref', '--format=%(refname) %(objectname)'),
    workspaceHead: git(workspace(), 'rev-parse', '--verify', '-q', 'HEAD^{commit}').trim() || null,
    workspaceStatus: git(workspace(), 'status', '--porcelain', '--untracked-files=all'),
    workspaceObjects: git(workspace(), 'count-objects', '-v'),
    remoteRefs: git(fx.bare, 'for-each-ref', '--format=%(refname) %(objectname)'),
    sourceStatus: git(fx.work, 'status', '--porcelain', '--untracked-files=all'),
    pulls: forge.pulls.length,
  });

  it('commits the diff on agent/patch-<hex> with the configured author, pushes it to origin and opens a pull request', async () => {
    const base = git(fx.bare, 'rev-parse', 'refs/heads/main');
    const { status, body } = await t.call('POST', '/api/v1/code/patch/apply', {
      repo: 'acme/widget',
      diff: goodDiff,
      title: 'Swap mul operands',
      body: 'Fixes #12.',
    });
    expect(status).toBe(201);
    const branch = patchBranch(goodDiff, base);
    expect(branch).toMatch(/^agent\/patch-[0-9a-f]{12}$/);
    expect(body).toEqual({
      ok: true,
      branch,
      commit: expect.stringMatching(/^[0-9a-f]{40}$/),
      baseBranch: 'main',
      baseCommit: base,
      pushed: true,
      files: [
        { path: 'calc/more.py', status: 'added', additions: 2, deletions: 0 },
        { path: 'calc/ops.py', status: 'modified', additions: 1, deletions: 1 },
      ],
      pullRequest: { number: 1, url: `${forge.url}/acme/widget/pull/1`, created: true },
    });
    expect(git(fx.bare, 'rev-parse', `refs/heads/${branch}`)).toBe(body.commit);
    expect(git(fx.bare, 'log', '-1', '--format=%an <%ae>|%cn <%ce>|%P|%B', body.commit)).toBe(
      `Patch Bot <bot@example.com>|Patch Bot <bot@example.com>|${base}|Swap mul operands\n\nFixes #12.`,
    );
    expect(gitRaw(fx.bare, 'show', `${body.commit}:calc/ops.py`)).toBe(changed);
    expect(gitRaw(fx.bare, 'show', `${body.commit}:calc/more.py`)).toBe('def more():\n    return 2\n');
    expect(git(fx.bare, 'rev-parse', 'refs/heads/main')).toBe(base);
    expect(forge.pulls).toMatchObject([{ number: 1, title: 'Swap mul operands', body: 'Fixes #12.', head: branch, base: 'main', state: 'open' }]);
    expect(forge.requests.find((r) => r.method === 'POST')).toMatchObject({ path: '/repos/acme/widget/pulls', auth: `Bearer ${token}` });
  });

  it('answers the same branch, commit and pull request when the same diff is applied again on the same base', async () => {
    const first = git(fx.bare, 'for-each-ref', '--format=%(refname) %(objectname)');
    const { status, body } = await t.call('POST', '/api/v1/code/patch/apply', {
      repo: 'acme/widget',
      diff: goodDiff,
      title: 'Swap mul operands',
      body: 'Fixes #12.',
    });
    expect(status).toBe(200);
    expect(body).toMatchObject({ pushed: false, pullRequest: { number: 1, created: false } });
    expect(git(fx.bare, 'for-each-ref', '--format=%(refname) %(objectname)')).toBe(first);
    expect(forge.pulls).toHaveLength(1);
  });

  it('answers 422 for a diff that does not apply and changes nothing: working trees, refs, objects and the forge', async () => {
    const bad = goodDiff.replace(' def mul(a, b):', ' def mul(x, y):');
    expect(bad).not.toBe(goodDiff);
    const before = snapshot();
    const { status, body } = await t.call('POST', '/api/v1/code/patch/apply', { repo: 'acme/widget', diff: bad, title: 'Bad', body: '' });
    expect(status).toBe(422);
    expect(body.error.code).toBe('patch_rejected');
    expect(body.error.details.problems).toEqual([{ file: 'calc/ops.py', reason: 'does_not_apply', message: expect.stringContaining('does not match') }]);
    expect(snapshot()).toEqual(before);
  });

  it('answers 422 for a diff that leaves the repository or breaks the syntax, naming the reason', async () => {
    const outside = '--- /dev/null\n+++ b/../../evil.sh\n@@ -0,0 +1 @@\n+rm -rf /\n';
    let r = await t.call('POST', '/api/v1/code/patch/apply', { repo: 'acme/widget', diff: outside, title: 'Evil', body: '' });
    expect(r.status).toBe(422);
    expect(r.body.error.details.problems[0].reason).toBe('outside_repository');
    const broken = goodDiff.replace('+    return b * a', '+    return b * (a');
    r = await t.call('POST', '/api/v1/code/patch/apply', { repo: 'acme/widget', diff: broken, title: 'Broken', body: '' });
    expect(r.status).toBe(422);
    expect(r.body.error.details.problems).toMatchObject([{ file: 'calc/ops.py', reason: 'syntax_errors' }]);
  });

  it('answers 422 for an unknown repository or base branch, and 400 for a body without a diff', async () => {
    let r = await t.call('POST', '/api/v1/code/patch/apply', { repo: 'acme/nope', diff: goodDiff, title: 'x', body: '' });
    expect([r.status, r.body.error.code]).toEqual([422, 'repository_unknown']);
    r = await t.call('POST', '/api/v1/code/patch/apply', { repo: 'acme/widget', diff: goodDiff, title: 'x', body: '', baseBranch: 'release' });
    expect([r.status, r.body.error.code]).toEqual([422, 'branch_not_found']);
    r = await t.call('POST', '/api/v1/code/patch/apply', { repo: 'acme/widget', title: 'x', body: '' });
    expect([r.status, r.body.error.code, r.body.error.details.issues[0].path]).toEqual([400, 'validation_failed', 'body.diff']);
  });
});
