import { z, type PluginContext } from 'tessera-runtime/plugin';
import type { AgentOptions } from '../options.js';
import { userOf } from '../repos/routes.js';
import { reviewChange, type ReviewDeps } from './service.js';

const reviewBody = z
  .strictObject({
    repo: z.string().min(3).max(201),
    pullNumber: z.number().int().min(1).optional(),
    diff: z.string().min(1).max(5_000_000).optional(),
    /** Post the review on the pull request (needs `pullNumber` and the forge). */
    post: z.boolean().default(false),
    baseBranch: z.string().min(1).max(250).optional(),
    /** What the model review asks the gateway for: a tier (`tier:6`), a task class or a model id. @default the tenant's playbook `review.model` */
    model: z.string().min(1).max(200).optional(),
  })
  .refine((b) => (b.pullNumber === undefined) !== (b.diff === undefined), { message: 'give pullNumber or diff, not both', path: ['pullNumber'] });

/**
 * `POST /api/v1/playbooks/review-pr`: the review agent. Deterministic checks first, then, when the
 * tenant has a model provider, the model's structured review merged in (`model` names it).
 */
export function registerReviewRoute(ctx: PluginContext<AgentOptions>, d: ReviewDeps & { defaultModel(tenant: string): string }): void {
  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/playbooks/review-pr',
    permission: 'playbooks:review',
    body: reviewBody,
    bodyLimit: 6_000_000,
    tags: ['agent: playbooks'],
    summary: 'Review a pull request or a diff: secrets, dangerous calls, syntax errors, tests touched, then the model; verdict, score and findings',
    handler: async (request) => {
      const { body, tenant } = request;
      return reviewChange(d, {
        tenant,
        user: userOf(request),
        repo: body.repo,
        ...(body.pullNumber !== undefined ? { pullNumber: body.pullNumber } : {}),
        ...(body.diff !== undefined ? { diff: body.diff } : {}),
        ...(body.baseBranch !== undefined ? { baseBranch: body.baseBranch } : {}),
        model: body.model ?? d.defaultModel(tenant),
        post: body.post,
        signal: request.signal,
      });
    },
  });
}
