import { errors } from '../errors.js';
import { ForgeError, type ForgeClient } from '../forge/client.js';
import type { Checkout } from '../repos/repositories.js';
import { commitFiles, gitIn, patchBranch, remoteBranch } from './commit.js';
import type { PatchedFile } from './verify.js';

export interface Proposal {
  branch: string;
  commit: string;
  /** `false` when the branch already held a commit with the same tree and parent (nothing was pushed). */
  pushed: boolean;
  pullRequest: { number: number; url: string; created: boolean } | null;
}

/**
 * Commits verified files on `agent/patch-<hex>` over the base commit, pushes the branch to the
 * checkout's push remote and, with a forge, opens (or finds) its pull request. Shared by
 * `POST /api/v1/code/patch/apply` and the ticket jobs' `proposing` step.
 */
export async function proposePatch(
  c: Checkout,
  o: {
    base: { branch: string; commit: string };
    diff: string;
    files: PatchedFile[];
    title: string;
    body: string;
    draft: boolean;
    author: { name: string; email: string };
    forge?: ForgeClient | undefined;
  },
): Promise<Proposal> {
  const branch = patchBranch(o.diff, o.base.commit);
  const message = o.body ? `${o.title}\n\n${o.body}\n` : `${o.title}\n`;
  const made = await commitFiles(c, o.base.commit, o.files, { message, author: o.author });
  const git = gitIn(c);
  // The same diff on the same base already pushed: keep that commit (same tree and parent).
  const existing = await remoteBranch(c, c.pushUrl, branch).catch(() => undefined);
  let commit = made.commit;
  let pushed = true;
  if (existing) {
    await git(['fetch', '--quiet', c.pushUrl, `refs/heads/${branch}`]).catch(() => undefined);
    const same = await git(['rev-parse', `${existing}^{tree}`, `${existing}^`]).catch(() => '');
    if (same.split('\n')[0] === made.tree && same.split('\n')[1] === o.base.commit) {
      commit = existing;
      pushed = false;
    }
  }
  if (pushed) {
    try {
      await git(['push', '--quiet', '--force', c.pushUrl, `${commit}:refs/heads/${branch}`]);
    } catch (err) {
      throw errors.push_failed({ branch, reason: (err as Error).message.slice(0, 500) });
    }
  }
  let pullRequest: Proposal['pullRequest'] = null;
  if (o.forge) {
    try {
      const pr = await o.forge.createPullRequest(c.ref.owner, c.ref.name, { title: o.title, head: branch, base: o.base.branch, body: o.body, draft: o.draft });
      pullRequest = { number: pr.number, url: pr.url, created: pr.created };
    } catch (err) {
      if (err instanceof ForgeError) throw errors.forge_failed({ reason: err.message });
      throw err;
    }
  }
  return { branch, commit, pushed, pullRequest };
}
