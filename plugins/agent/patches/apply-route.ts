import { reply, z, type PluginContext } from 'tessera-runtime/plugin';
import { errors } from '../errors.js';
import { ForgeError, type ForgeClient } from '../forge/client.js';
import type { AgentOptions } from '../options.js';
import type { Repositories } from '../repos/repositories.js';
import { baseCommit, userOf } from '../repos/routes.js';
import { commitFiles, gitIn, patchBranch, remoteBranch } from './commit.js';
import { commitReader } from './tree-reader.js';
import { verifyPatch } from './verify.js';

const applyBody = z.strictObject({
  repo: z.string().min(3).max(201),
  diff: z.string().min(1).max(5_000_000),
  title: z.string().min(1).max(256),
  body: z.string().max(65_536).default(''),
  baseBranch: z.string().min(1).max(250).optional(),
  draft: z.boolean().default(false),
});

/** `POST /api/v1/code/patch/apply`. */
export function registerApplyRoute(ctx: PluginContext<AgentOptions>, d: { repos: Repositories; forge?: ForgeClient }): void {
  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/code/patch/apply',
    permission: 'code:apply',
    body: applyBody,
    tags: ['agent: patches'],
    summary: 'Verify a unified diff, commit it on agent/patch-<hex>, push the branch and open a pull request',
    handler: async (request) => {
      const { body, tenant } = request;
      return d.repos.withCheckout(tenant, userOf(request), body.repo, async (c) => {
        const base = await baseCommit(c, body.baseBranch);
        const verification = await verifyPatch(body.diff, await commitReader(c, base.commit));
        if (!verification.ok) {
          const reason = verification.problems.map((p) => (p.file ? `${p.file}: ${p.message}` : p.message)).join('; ');
          throw errors.patch_rejected({ reason }, { details: { problems: verification.problems } });
        }
        const branch = patchBranch(body.diff, base.commit);
        const message = body.body ? `${body.title}\n\n${body.body}\n` : `${body.title}\n`;
        const made = await commitFiles(c, base.commit, verification.files, { message, author: ctx.config.author });
        const git = gitIn(c);
        // The same diff on the same base already pushed: keep that commit (same tree and parent).
        const existing = await remoteBranch(c, c.pushUrl, branch).catch(() => undefined);
        let commit = made.commit;
        let pushed = true;
        if (existing) {
          await git(['fetch', '--quiet', c.pushUrl, `refs/heads/${branch}`]).catch(() => undefined);
          const same = await git(['rev-parse', `${existing}^{tree}`, `${existing}^`]).catch(() => '');
          if (same.split('\n')[0] === made.tree && same.split('\n')[1] === base.commit) {
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
        let pullRequest: { number: number; url: string; created: boolean } | null = null;
        if (d.forge) {
          try {
            const pr = await d.forge.createPullRequest(c.ref.owner, c.ref.name, {
              title: body.title,
              head: branch,
              base: base.branch,
              body: body.body,
              draft: body.draft,
            });
            pullRequest = { number: pr.number, url: pr.url, created: pr.created };
          } catch (err) {
            if (err instanceof ForgeError) throw errors.forge_failed({ reason: err.message });
            throw err;
          }
        }
        await ctx.events.append('patch.applied', { repo: c.ref.full, branch, commit, baseCommit: base.commit, pullRequest }, { tenant, subject: c.ref.full });
        const files = verification.files.map(({ path, status, oldPath, additions, deletions }) => ({
          path,
          status,
          ...(oldPath ? { oldPath } : {}),
          additions,
          deletions,
        }));
        return reply(pushed ? 201 : 200, { branch, commit, baseBranch: base.branch, baseCommit: base.commit, pushed, files, pullRequest });
      });
    },
  });
}
