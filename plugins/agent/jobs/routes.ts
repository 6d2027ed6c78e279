import { JobNotFoundError, reply, z, type PluginContext } from 'tessera-runtime/plugin';
import { errors } from '../errors.js';
import type { AgentOptions } from '../options.js';
import { userOf } from '../repos/routes.js';
import { submitTicket } from './submit.js';
import { detailOf, finalTicketStates, summaryOf, ticketStates, type Answer, type TicketJob, type TicketStore } from './ticket-store.js';

const repoName = z.string().regex(/^[A-Za-z0-9._-]{1,100}\/[A-Za-z0-9._-]{1,100}$/, 'expected "<owner>/<repository>"');

/** Seed 002's ticket webhook payload; unknown fields are ignored (trackers send more than this). */
export const ticketPayload = z.object({
  ticket_id: z.string().trim().min(1).max(200),
  repo_name: repoName,
  title: z.string().trim().min(1).max(500),
  description: z.string().max(100_000),
  labels: z.array(z.string().min(1).max(100)).max(50).optional(),
  url: z.url({ protocol: /^https?$/ }).optional(),
});

const listQuery = z.strictObject({
  state: z.enum(ticketStates).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().min(1).max(100).optional(),
});

const answersBody = z.strictObject({
  answers: z
    .array(
      z.strictObject({
        questionId: z.string().min(1).max(60),
        choiceId: z.string().min(1).max(60).optional(),
        text: z.string().min(1).max(10_000).optional(),
      }),
    )
    .min(1)
    .max(20),
});

/** Checks answers against the job's questions: every question answered once, known choices, free text only where allowed. */
export function checkAnswers(r: TicketJob, answers: Answer[]): void {
  const questions = r.questions ?? [];
  const seen = new Set<string>();
  for (const a of answers) {
    const q = questions.find((x) => x.id === a.questionId);
    if (!q) throw errors.answers_invalid({ reason: `no question "${a.questionId}"` });
    if (seen.has(q.id)) throw errors.answers_invalid({ reason: `question "${q.id}" is answered twice` });
    seen.add(q.id);
    if (a.choiceId === undefined && a.text === undefined) throw errors.answers_invalid({ reason: `question "${q.id}" needs a choiceId or a text` });
    if (a.choiceId !== undefined && !q.choices.some((c) => c.id === a.choiceId))
      throw errors.answers_invalid({ reason: `question "${q.id}" has no choice "${a.choiceId}"` });
    if (a.text !== undefined && !q.allowFreeText) throw errors.answers_invalid({ reason: `question "${q.id}" does not take free text` });
  }
  const missing = questions.filter((q) => !seen.has(q.id)).map((q) => q.id);
  if (missing.length) throw errors.answers_invalid({ reason: `unanswered: ${missing.join(', ')}` });
}

/** `POST /api/v1/tickets/webhook` and `/api/v1/jobs*`. */
export function registerTicketRoutes(ctx: PluginContext<AgentOptions>, store: TicketStore): void {
  const tags = ['agent: tickets and jobs'];
  const find = (tenant: string, id: string): TicketJob => {
    const r = store.get(tenant, id);
    // The runtime's own error for an unknown job (404 `job_not_found`), as `ctx.jobs` answers it.
    if (!r) throw new JobNotFoundError(id);
    return r;
  };

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/tickets/webhook',
    permission: 'jobs:write',
    body: ticketPayload,
    successStatus: 202,
    tags,
    summary: 'Ingest a ticket and start (or find, for a redelivery) its remediation job',
    handler: async (request) => {
      const { jobId, state, created } = await submitTicket(ctx, request.tenant, { ...request.body, source: 'webhook' }, userOf(request));
      return reply(202, { ok: true, jobId, state, created });
    },
  });

  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/jobs',
    permission: 'jobs:read',
    throttle: 'light',
    query: listQuery,
    tags,
    summary: "The tenant's ticket jobs, newest first",
    handler: (request) => {
      const page = store.list(request.tenant, request.query);
      return { jobs: page.jobs.map(summaryOf), ...(page.next ? { next: page.next } : {}) };
    },
  });

  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/jobs/:id',
    permission: 'jobs:read',
    throttle: 'light',
    tags,
    summary: 'One ticket job: state, timeline, attempts, questions and answers, diff, test output, pull request, cost',
    handler: (request) => ({ job: detailOf(find(request.tenant, request.params.id!)) }),
  });

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/jobs/:id/cancel',
    permission: 'jobs:write',
    tags,
    summary: 'Cancel a ticket job (a running step is stopped)',
    handler: async (request) => {
      const r = find(request.tenant, request.params.id!);
      if (r.state !== 'cancelled') {
        if (finalTicketStates.has(r.state)) throw errors.job_finished({ id: r.id, state: r.state });
        await store.transition(r, 'cancelled', { note: 'cancelled by request' });
      }
      const jobs = ctx.jobs.tenant(request.tenant);
      for (const run of r.runs) {
        const job = jobs.get(run);
        if (job && (job.state === 'queued' || job.state === 'running')) await jobs.cancel(run);
      }
      return { jobId: r.id, state: 'cancelled' };
    },
  });

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/jobs/:id/answers',
    permission: 'jobs:write',
    body: answersBody,
    tags,
    summary: 'Answer the clarifying questions of a paused job; it resumes with the answers in its context',
    handler: async (request) => {
      const r = find(request.tenant, request.params.id!);
      if (r.state !== 'awaiting_clarification') throw errors.job_not_awaiting({ id: r.id, state: r.state });
      const answers = request.body.answers.map((a) => ({
        questionId: a.questionId,
        ...(a.choiceId ? { choiceId: a.choiceId } : {}),
        ...(a.text ? { text: a.text } : {}),
      }));
      checkAnswers(r, answers);
      r.answers = answers;
      await store.transition(r, 'queued', { note: `${answers.length} answer(s) received` });
      // A new run of the record (the run that asked the questions has ended); it adds itself to `runs`.
      await ctx.jobs
        .tenant(request.tenant)
        .enqueue(
          'ticket',
          { ticket: r.ticket, user: r.user, jobId: r.id, ...(r.options ? { options: r.options } : {}) },
          { key: `ticket-answers:${r.id}:${r.runs.length}` },
        );
      return { jobId: r.id, state: 'queued' };
    },
  });
}
