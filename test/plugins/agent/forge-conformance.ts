import { describe, expect, it } from 'vitest';
import { ForgeError, type ForgeClient } from '../../../plugins/agent/forge/client.js';

export interface ConformanceTarget {
  client: ForgeClient;
  owner: string;
  repo: string;
  base: string;
  /** Pushes a new branch, one commit ahead of `base`, adding `file`; answers its commit. */
  pushBranch(branch: string, file: string): Promise<string>;
  /** The commit the forge's `base` branch points at. */
  baseHead(): Promise<string>;
}

/** What every `ForgeClient` must do against its forge: run it with a real or protocol-faithful forge. */
export function forgeConformance(label: string, target: () => Promise<ConformanceTarget>): void {
  describe(`${label} (forge client conformance)`, () => {
    it('reads a repository and answers undefined for an unknown one', async () => {
      const t = await target();
      const repo = await t.client.getRepository(t.owner, t.repo);
      expect(repo).toMatchObject({ fullName: `${t.owner}/${t.repo}`, defaultBranch: t.base });
      expect(repo!.cloneUrl).toBeTruthy();
      expect(await t.client.getRepository(t.owner, 'does-not-exist')).toBeUndefined();
    });

    it('opens a pull request, answers the same one for the same head, and reads it and its diff', async () => {
      const t = await target();
      await t.pushBranch('feature/one', 'one.txt');
      const pr = await t.client.createPullRequest(t.owner, t.repo, { title: 'One', head: 'feature/one', base: t.base, body: 'Adds one.' });
      expect(pr).toMatchObject({ created: true, state: 'open', merged: false, head: 'feature/one', base: t.base, title: 'One', body: 'Adds one.' });
      expect(pr.number).toBeGreaterThan(0);
      expect(pr.url).toMatch(/^https?:\/\//);
      const again = await t.client.createPullRequest(t.owner, t.repo, { title: 'One', head: 'feature/one', base: t.base, body: 'Adds one.' });
      expect(again).toMatchObject({ created: false, number: pr.number });
      expect(await t.client.getPullRequest(t.owner, t.repo, pr.number)).toMatchObject({ number: pr.number, state: 'open' });
      expect(await t.client.getPullRequest(t.owner, t.repo, 99_999)).toBeUndefined();
      expect(await t.client.getPullRequestDiff(t.owner, t.repo, pr.number)).toContain('+++ b/one.txt');
    });

    it('refuses a pull request from a branch that does not exist', async () => {
      const t = await target();
      await expect(t.client.createPullRequest(t.owner, t.repo, { title: 'x', head: 'nope', base: t.base, body: '' })).rejects.toMatchObject({
        name: 'ForgeError',
        status: 422,
      });
    });

    it('comments on an issue or pull request and lists the comments', async () => {
      const t = await target();
      await t.pushBranch('feature/two', 'two.txt');
      const pr = await t.client.createPullRequest(t.owner, t.repo, { title: 'Two', head: 'feature/two', base: t.base, body: '' });
      const c = await t.client.commentOnIssue(t.owner, t.repo, pr.number, 'Tests pass.');
      expect(c).toMatchObject({ body: 'Tests pass.' });
      expect((await t.client.listIssueComments(t.owner, t.repo, pr.number)).map((x) => x.body)).toEqual(['Tests pass.']);
      expect((await t.client.createReview(t.owner, t.repo, pr.number, { event: 'APPROVE', body: 'LGTM' })).id).toBeGreaterThan(0);
    });

    it('merges a pull request into its base once, and refuses a second merge', async () => {
      const t = await target();
      const head = await t.pushBranch('feature/three', 'three.txt');
      const pr = await t.client.createPullRequest(t.owner, t.repo, { title: 'Three', head: 'feature/three', base: t.base, body: '' });
      const merged = await t.client.mergePullRequest(t.owner, t.repo, pr.number, { method: 'merge' });
      expect(merged.merged).toBe(true);
      expect(merged.sha).toBe(await t.baseHead());
      expect(merged.sha).not.toBe(head);
      expect(await t.client.getPullRequest(t.owner, t.repo, pr.number)).toMatchObject({ state: 'closed', merged: true });
      const err = await t.client.mergePullRequest(t.owner, t.repo, pr.number).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ForgeError);
      expect((err as ForgeError).status).toBe(405);
    });
  });
}
