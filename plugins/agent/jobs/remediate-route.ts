import { randomBytes } from 'node:crypto';
import { reply, z, type PluginContext } from 'tessera-runtime/plugin';
import { errors } from '../errors.js';
import type { CodeIndex } from '../code/code-index.js';
import type { AgentOptions } from '../options.js';
import { commitReader } from '../patches/tree-reader.js';
import { listFiles } from '../repos/files.js';
import { baseCommit, userOf } from '../repos/routes.js';
import { chooseRole, isRoleId, roles } from '../roles/roles.js';
import { ground } from './grounding.js';
import { remediationLoop, verifyDiff, type LoopDeps } from './loop.js';
import { submitTicket } from './submit.js';
import type { Attempt } from './ticket-store.js';

const remediateBody = z
  .strictObject({
    repo: z.string().min(3).max(201),
    instructions: z.string().trim().min(1).max(100_000).optional(),
    ticket: z
      .object({
        ticket_id: z.string().trim().min(1).max(200),
        title: z.string().trim().min(1).max(500),
        description: z.string().max(100_000),
        labels: z.array(z.string().min(1).max(100)).max(50).optional(),
        url: z.url({ protocol: /^https?$/ }).optional(),
      })
      .optional(),
    files: z.array(z.string().min(1).max(1000)).max(50).optional(),
    tier: z.number().int().min(1).max(10).optional(),
    maxIterations: z.number().int().min(1).max(20).optional(),
    /** The specialised agent to use; chosen from the instructions and files when absent. */
    role: z.string().refine(isRoleId, 'one of backend-python, frontend-ui, frontier-architecture, security-auditor').optional(),
    baseBranch: z.string().min(1).max(250).optional(),
    /** Run as a ticket job and answer its id at once (always so when `ticket` is given). @default false */
    async: z.boolean().default(false),
  })
  .refine((b) => (b.instructions === undefined) !== (b.ticket === undefined), {
    message: 'give exactly one of instructions and ticket',
    path: ['instructions'],
  });

const attemptView = (a: Attempt) => ({
  n: a.n,
  tier: a.tier,
  model: a.model,
  diff: a.diff,
  verified: a.verified,
  ...(a.verifyError ? { verifyError: a.verifyError } : {}),
  ...(a.tests ? { tests: a.tests } : {}),
  costUsd: a.costUsd,
});

/**
 * `POST /api/v1/agent/remediate`: with `instructions` (and `async` false) the loop runs inside the
 * request, at most `tickets.syncMaxIterations` iterations, and answers the verified diff; with a
 * `ticket` or `async: true` it is a ticket job (triage, questions, PR) and the answer is 202 with its id.
 */
export function registerRemediateRoute(ctx: PluginContext<AgentOptions>, d: LoopDeps & { graphs: CodeIndex }): void {
  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/agent/remediate',
    permission: 'jobs:write',
    throttle: 'heavy',
    body: remediateBody,
    tags: ['agent: patches'],
    summary: 'Synthesise a verified, tested multi-file diff (synchronously), or start a ticket job for it',
    handler: async (request) => {
      const { body, tenant } = request;
      const user = userOf(request);
      const options = {
        ...(body.files ? { files: body.files } : {}),
        ...(body.tier ? { tier: body.tier } : {}),
        ...(body.maxIterations ? { maxIterations: body.maxIterations } : {}),
      };
      if (body.ticket || body.async) {
        const ticket = body.ticket ?? {
          ticket_id: `api-${randomBytes(6).toString('hex')}`,
          title: body.instructions!.split('\n')[0]!.slice(0, 200),
          description: body.instructions!,
        };
        const job = await submitTicket(ctx, tenant, { ...ticket, repo_name: body.repo, source: 'api' }, user, options);
        return reply(202, { ok: true, ...job });
      }
      d.model.assertConfigured(tenant);
      const instructions = body.instructions!;
      const prepared = await d.repos.withCheckout(tenant, user, body.repo, async (c) => {
        const base = await baseCommit(c, body.baseBranch);
        await d.graphs.update(tenant, c, base.commit);
        const paths = (await listFiles(c, base.commit)).map((f) => f.path);
        const files = (body.files ?? []).filter((f) => paths.includes(f));
        const g = await ground(d.graphs.lookup(tenant, body.repo), await commitReader(c, base.commit), {
          text: instructions,
          files,
          paths,
          maxChars: ctx.config.tickets.contextChars,
        });
        return { base, g };
      });
      const role = roles[body.role && isRoleId(body.role) ? body.role : chooseRole({ title: instructions, description: '' }, prepared.g.files)];
      const attempts: Attempt[] = [];
      let costUsd = 0;
      const outcome = await remediationLoop(d, {
        tenant,
        user,
        repo: body.repo,
        baseCommit: prepared.base.commit,
        role,
        task: `Task:\n${instructions}`,
        context: prepared.g.text,
        attempts,
        maxIterations: Math.min(body.maxIterations ?? ctx.config.tickets.syncMaxIterations, ctx.config.tickets.syncMaxIterations),
        startTier: body.tier,
        signal: request.signal,
        enter: async () => {},
        charged: (a) => (costUsd += a.costUsd),
        checkpoint: async () => {},
      });
      const last = outcome.attempt;
      if (!outcome.ok) {
        const reason = !last
          ? 'no iteration ran'
          : last.verified
            ? `the tests failed (exit code ${last.tests?.exitCode})`
            : `the diff was refused: ${last.verifyError}`;
        throw errors.remediation_exhausted(
          { iterations: attempts.length, reason: reason.slice(0, 500) },
          {
            details: {
              iterations: attempts.length,
              lastDiff: last?.diff ?? null,
              lastOutput: last?.tests?.output ?? last?.verifyError ?? null,
              attempts: attempts.map(attemptView),
            },
          },
        );
      }
      const files = await d.repos.withCheckout(tenant, user, body.repo, async (c) => {
        const v = await verifyDiff(c, prepared.base.commit, last!.diff, role);
        return 'error' in v ? [] : v.files.map(({ path, status, additions, deletions }) => ({ path, status, additions, deletions }));
      });
      return {
        diff: last!.diff,
        files,
        model: last!.model,
        role: role.id,
        baseBranch: prepared.base.branch,
        baseCommit: prepared.base.commit,
        attempts: attempts.map(attemptView),
        verified: true,
        tests: last!.tests,
        costUsd,
      };
    },
  });
}
