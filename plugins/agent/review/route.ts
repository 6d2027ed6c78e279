import { z, type PluginContext } from 'tessera-runtime/plugin';
import { errors } from '../errors.js';
import { ForgeError, type ForgeClient } from '../forge/client.js';
import type { AgentOptions } from '../options.js';
import { commitReader } from '../patches/tree-reader.js';
import type { Repositories } from '../repos/repositories.js';
import { baseCommit, userOf } from '../repos/routes.js';
import { deterministicChecks, verdictOf, type Finding } from './checks.js';

const reviewBody = z
  .strictObject({
    repo: z.string().min(3).max(201),
    pullNumber: z.number().int().min(1).optional(),
    diff: z.string().min(1).max(5_000_000).optional(),
    /** Post the review on the pull request (needs `pullNumber` and the forge). */
    post: z.boolean().default(false),
    baseBranch: z.string().min(1).max(250).optional(),
  })
  .refine((b) => (b.pullNumber === undefined) !== (b.diff === undefined), { message: 'give pullNumber or diff, not both', path: ['pullNumber'] });

const forgeEvent = { approve: 'APPROVE', request_changes: 'REQUEST_CHANGES', comment: 'COMMENT' } as const;

function summaryOf(verdict: string, score: number, files: string[], findings: Finding[]): string {
  const bySeverity = ['high', 'medium', 'low'].map((s) => `${findings.filter((f) => f.severity === s).length} ${s}`).join(', ');
  return `${verdict} (score ${score}): ${files.length} file(s) changed; findings: ${bySeverity}.`;
}

function reviewText(summary: string, findings: Finding[]): string {
  const lines = findings.map((f) => `- **${f.severity}** ${f.category}${f.file ? ` \`${f.file}${f.line ? `:${f.line}` : ''}\`` : ''}: ${f.message}`);
  return [`Tessera review: ${summary}`, '', ...lines].join('\n');
}

/** `POST /api/v1/playbooks/review-pr`: the review agent's deterministic checks (the model's review is not wired yet: `model: null`). */
export function registerReviewRoute(ctx: PluginContext<AgentOptions>, d: { repos: Repositories; forge?: ForgeClient }): void {
  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/playbooks/review-pr',
    permission: 'playbooks:review',
    body: reviewBody,
    tags: ['agent: playbooks'],
    summary: 'Review a pull request or a diff: secrets, dangerous calls, syntax errors, tests touched; verdict, score and findings',
    handler: async (request) => {
      const { body, tenant } = request;
      return d.repos.withCheckout(tenant, userOf(request), body.repo, async (c) => {
        let diff = body.diff;
        let base = body.baseBranch;
        if (body.pullNumber !== undefined) {
          if (!d.forge) throw errors.forge_not_configured({ reason: 'a pull request by number is read from the forge' });
          try {
            const pr = await d.forge.getPullRequest(c.ref.owner, c.ref.name, body.pullNumber);
            if (!pr) throw errors.pull_request_not_found({ number: body.pullNumber, repo: c.ref.full });
            base ??= pr.base;
            diff = await d.forge.getPullRequestDiff(c.ref.owner, c.ref.name, body.pullNumber);
          } catch (err) {
            if (err instanceof ForgeError) throw errors.forge_failed({ reason: err.message });
            throw err;
          }
        }
        const at = await baseCommit(c, base);
        const { findings, files } = await deterministicChecks(diff!, await commitReader(c, at.commit));
        const { verdict, score } = verdictOf(findings);
        const summary = summaryOf(verdict, score, files, findings);
        let posted: { reviewId: number } | null = null;
        if (body.post) {
          if (body.pullNumber === undefined || !d.forge) throw errors.forge_not_configured({ reason: 'posting a review needs pullNumber and the forge' });
          try {
            posted = {
              reviewId: (
                await d.forge.createReview(c.ref.owner, c.ref.name, body.pullNumber, { event: forgeEvent[verdict], body: reviewText(summary, findings) })
              ).id,
            };
          } catch (err) {
            if (err instanceof ForgeError) throw errors.forge_failed({ reason: err.message });
            throw err;
          }
        }
        await ctx.events.append(
          'review.completed',
          { repo: c.ref.full, pullNumber: body.pullNumber ?? null, verdict, score, findings: findings.length },
          { tenant, subject: c.ref.full },
        );
        return { verdict, summary, score, findings, files, baseCommit: at.commit, model: null, posted };
      });
    },
  });
}
