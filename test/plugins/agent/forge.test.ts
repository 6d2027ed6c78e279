import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitHubForge } from '../../../plugins/agent/forge/github.js';
import { forgeConformance } from './forge-conformance.js';
import { ForgeServer } from './forge-server.js';
import { git, makeRepo, type Fixture } from './git-fixture.js';

const token = 'ghp_conformance_token';
let forge: ForgeServer;
let fx: Fixture;
beforeAll(async () => {
  fx = makeRepo('acme', 'forge', { 'README.md': '# forge\n' });
  forge = await new ForgeServer(token).start();
  forge.addRepo('acme/forge', fx.bare);
});
afterAll(() => forge.stop());

forgeConformance('GitHubForge against the local GitHub-compatible server', async () => ({
  client: new GitHubForge(forge.url, token, (url, init) => fetch(url, init)),
  owner: 'acme',
  repo: 'forge',
  base: 'main',
  async pushBranch(branch, file) {
    git(fx.work, 'checkout', '-q', '-B', branch, 'origin/main');
    writeFileSync(path.join(fx.work, file), `${file}\n`);
    git(fx.work, 'add', file);
    git(fx.work, 'commit', '-qm', `add ${file}`);
    git(fx.work, 'push', '-q', '-f', 'origin', branch);
    git(fx.work, 'fetch', '-q', 'origin');
    return git(fx.work, 'rev-parse', 'HEAD');
  },
  baseHead: async () => git(fx.bare, 'rev-parse', 'refs/heads/main'),
}));

describe('GitHubForge', () => {
  it('sends the token as a bearer token with GitHub API headers, and fails on bad credentials', async () => {
    const client = new GitHubForge(forge.url, token, (url, init) => fetch(url, init));
    await client.getRepository('acme', 'forge');
    const last = forge.requests.at(-1)!;
    expect(last).toMatchObject({ method: 'GET', path: '/repos/acme/forge', auth: `Bearer ${token}` });
    const wrong = new GitHubForge(forge.url, 'wrong', (url, init) => fetch(url, init));
    await expect(wrong.getRepository('acme', 'forge')).rejects.toMatchObject({ status: 401, message: expect.stringContaining('Bad credentials') });
  });
});
