import { reply, z, type PluginContext } from 'tessera-runtime/plugin';
import { errors } from '../errors.js';
import type { ForgeClient } from '../forge/client.js';
import type { AgentOptions } from '../options.js';
import type { Repositories } from '../repos/repositories.js';
import { baseCommit, userOf } from '../repos/routes.js';
import { proposePatch } from './propose.js';
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
        const { branch, commit, pushed, pullRequest } = await proposePatch(c, {
          base,
          diff: body.diff,
          files: verification.files,
          title: body.title,
          body: body.body,
          draft: body.draft,
          author: ctx.config.author,
          forge: d.forge,
        });
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
