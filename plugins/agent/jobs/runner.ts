import type { EventLog, JobContext, PluginJobs } from 'tessera-runtime/plugin';
import { engagementLimits, type Budgets } from '../budget.js';
import type { CodeIndex } from '../code/code-index.js';
import { errors } from '../errors.js';
import type { ForgeClient } from '../forge/client.js';
import { commitReader } from '../patches/tree-reader.js';
import { proposePatch } from '../patches/propose.js';
import { listFiles } from '../repos/files.js';
import type { Repositories } from '../repos/repositories.js';
import { baseCommit } from '../repos/routes.js';
import { roles } from '../roles/roles.js';
import type { Sandbox } from '../sandbox/run.js';
import { ground } from './grounding.js';
import { remediationLoop, tail, verifyDiff } from './loop.js';
import type { AgentModel } from './model.js';
import { pullRequestBody } from './pr-body.js';
import { TicketCancelled, finalTicketStates, type TicketJob, type TicketJobInput, type TicketStore } from './ticket-store.js';
import { ticketText, triageTicket } from './triage.js';

export interface RunnerDeps {
  store: TicketStore;
  repos: Repositories;
  graphs: CodeIndex;
  sandbox: Sandbox;
  model: AgentModel;
  budgets: Budgets;
  jobs: PluginJobs;
  events: EventLog;
  forge?: ForgeClient | undefined;
  author: { name: string; email: string };
  maxEscalation: number;
  options: { perTenant: number; maxIterations?: number | undefined; contextChars: number };
}

/** The record a run works on: the one named by the input, else the ticket's, else the run's own id (a first run). */
export function recordIdOf(d: Pick<RunnerDeps, 'store'>, job: { id: string; tenant: string; input: TicketJobInput }): string {
  return job.input.jobId ?? d.store.idOf(job.tenant, job.input.ticket.ticket_id) ?? job.id;
}

function answersText(r: TicketJob): string {
  if (!r.answers?.length || !r.questions?.length) return '';
  const lines = ['Clarifications from the reviewers:'];
  for (const a of r.answers) {
    const q = r.questions.find((x) => x.id === a.questionId);
    const choice = q?.choices.find((c) => c.id === a.choiceId)?.label;
    lines.push(`- ${q?.question ?? a.questionId} -> ${[choice, a.text].filter(Boolean).join('; ')}`);
  }
  return lines.join('\n');
}

/**
 * The `ticket` job: one run takes the record from where it was saved to `completed`, `failed`,
 * `cancelled` or `awaiting_clarification` (the run then ends; answers start a new run). Every step
 * is saved before the next begins, so a run interrupted by a restart resumes at the last saved step.
 */
export class TicketRunner {
  private readonly running = new Map<string, number>();
  private readonly active = new Set<string>();

  constructor(private readonly d: RunnerDeps) {}

  private acquire(tenant: string): boolean {
    const n = this.running.get(tenant) ?? 0;
    if (n >= this.d.options.perTenant) return false;
    this.running.set(tenant, n + 1);
    return true;
  }

  private release(tenant: string): void {
    const n = (this.running.get(tenant) ?? 1) - 1;
    if (n <= 0) this.running.delete(tenant);
    else this.running.set(tenant, n);
  }

  readonly handle = async (job: JobContext<TicketJobInput>): Promise<unknown> => {
    const { store } = this.d;
    const id = recordIdOf(this.d, job);
    const user = job.input.user ?? 'anonymous';
    const { record } = await store.ensure(job.tenant, id, job.input.ticket, user, job.input.options);
    let r = record;
    if (!r.runs.includes(job.id)) r.runs.push(job.id);
    if (job.input.replayOf && r.state === 'failed') {
      // A replay starts again after triage (answers kept) on a fresh base: nothing of the failed run is reused.
      delete r.base;
      delete r.plan;
      delete r.diff;
      delete r.tests;
      delete r.error;
      r.attempts = [];
      r.replays = [...(r.replays ?? []), job.id];
      await store.transition(r, 'queued', { note: `replayed from dead letter ${job.input.replayOf}` });
    }
    if (finalTicketStates.has(r.state) || (r.state === 'awaiting_clarification' && !r.answers)) return { jobId: id, state: r.state };
    if (this.active.has(id)) return { jobId: id, state: r.state, skipped: 'another run of this job is active' };
    if (!this.acquire(job.tenant)) {
      // The tenant is at its limit: wait queued without holding a slot of the runner.
      const next = await this.d.jobs
        .tenant(job.tenant)
        .enqueue(
          'ticket',
          { ticket: r.ticket, user, jobId: id, ...(r.options ? { options: r.options } : {}) },
          { key: `ticket-run:${id}:${job.id}`, delayMs: 1000 },
        );
      if (!r.runs.includes(next.id)) r.runs.push(next.id);
      await store.save(r);
      return { jobId: id, state: r.state, deferredTo: next.id };
    }
    this.active.add(id);
    try {
      r = await this.advance(r, job);
      return { jobId: id, state: r.state, ...(r.pullRequest ? { pullRequest: r.pullRequest } : {}) };
    } catch (err) {
      const reason = job.signal.aborted ? String(job.signal.reason) : undefined;
      if (reason === 'shutdown') throw err;
      const current = store.get(job.tenant, id);
      if (err instanceof TicketCancelled || reason === 'cancelled' || current?.state === 'cancelled') {
        if (current && current.state !== 'cancelled') await store.transition(current, 'cancelled');
        // Thrown on, the aborted run is recorded `cancelled` by ctx.jobs (not completed, not dead-lettered).
        if (reason === 'cancelled') throw err;
        return { jobId: id, state: 'cancelled' };
      }
      const code = (err as { code?: string }).code ?? 'error';
      r.error = { code: reason === 'timeout' ? 'timeout' : code, message: (err as Error).message };
      await store.transition(r, 'failed', { note: r.error.code });
      await this.d.events.append('ticket.failed', { jobId: id, ticket: r.ticket, error: r.error }, { tenant: r.tenant, subject: id });
      throw err;
    } finally {
      this.active.delete(id);
      this.release(job.tenant);
    }
  };

  /** What the dead-letter record of a failed run keeps besides the error: the last diff and test output. */
  deadLetterDetails(job: { id: string; tenant: string; input: TicketJobInput }): Record<string, unknown> | undefined {
    const r = this.d.store.get(job.tenant, recordIdOf(this.d, job));
    if (!r) return undefined;
    const last = r.attempts.at(-1);
    return {
      ticketJobId: r.id,
      ticketId: r.ticket.ticket_id,
      repo: r.ticket.repo_name,
      role: r.role,
      iterations: r.attempts.length,
      lastDiff: last?.diff ?? null,
      lastOutput: last ? (last.tests?.output ?? last.verifyError ?? null) : null,
      lastState: r.timeline.at(-2)?.state ?? null,
    };
  }

  private async advance(r: TicketJob, job: JobContext<TicketJobInput>): Promise<TicketJob> {
    const { store, model } = this.d;
    const signal = job.signal;
    const charged = (a: { model: string; tier: number; costUsd: number; tokens: number }) => store.charge(r, a);
    if (!r.triage) await store.transition(r, 'triaging');
    else if (!r.plan) await store.transition(r, 'planning', r.answers ? { note: 'answers received' } : {});
    model.assertConfigured(r.tenant);

    const grounded = await this.d.repos.withCheckout(r.tenant, r.user, r.ticket.repo_name, async (c) => {
      r.base ??= await baseCommit(c);
      await this.d.graphs.update(r.tenant, c, r.base.commit);
      const paths = (await listFiles(c, r.base.commit)).map((f) => f.path);
      const read = await commitReader(c, r.base.commit);
      const text = `${r.ticket.title}\n${r.ticket.description}\n${answersText(r)}`;
      const files = [...(r.options?.files ?? []), ...(r.triage?.files ?? [])].filter((f) => paths.includes(f));
      return { g: await ground(this.d.graphs.lookup(r.tenant, c.ref.full), read, { text, files, paths, maxChars: this.d.options.contextChars }), paths };
    });
    await store.save(r);

    if (!r.triage) {
      const t = await triageTicket(
        model,
        { tenant: r.tenant, ticket: r.ticket, context: grounded.g.text, groundedFiles: grounded.g.files, paths: new Set(grounded.paths), signal },
        charged,
      );
      r.triage = { actionable: t.actionable, summary: t.summary, role: t.role, roleSource: t.roleSource, files: t.files };
      r.role = t.role;
      if (!t.actionable) {
        r.questions = t.questions;
        await store.transition(r, 'awaiting_clarification', { note: `${t.questions.length} question(s)` });
        await this.d.events.append('ticket.questions', { jobId: r.id, questions: t.questions }, { tenant: r.tenant, subject: r.id });
        return r;
      }
      await store.transition(r, 'planning', { note: `${roles[t.role].title} (${t.roleSource})` });
    }
    const role = roles[r.triage.role];
    r.role = role.id as TicketJob['role'];
    if (!r.plan) {
      const budget = this.d.budgets.get(r.tenant);
      const maxIterations =
        r.options?.maxIterations ?? this.d.options.maxIterations ?? engagementLimits(budget.engagementMode, this.d.maxEscalation).maxIterations;
      r.plan = { files: grounded.g.files, declarations: grounded.g.declarations.map((x) => x.id), maxIterations };
      await store.save(r);
    }
    const task = [ticketText(r.ticket), `Triage summary: ${r.triage.summary}`, answersText(r)].filter(Boolean).join('\n\n');
    const outcome = await remediationLoop(this.d, {
      tenant: r.tenant,
      user: r.user,
      repo: r.ticket.repo_name,
      baseCommit: r.base!.commit,
      role,
      task,
      context: grounded.g.text,
      attempts: r.attempts,
      maxIterations: r.plan.maxIterations,
      startTier: r.options?.tier,
      signal,
      enter: (state, note) => store.transition(r, state, note ? { note } : {}),
      charged,
      checkpoint: () => store.save(r),
    });
    const last = outcome.attempt;
    if (last) {
      r.diff = last.diff;
      if (last.tests) r.tests = last.tests;
    }
    if (!outcome.ok) {
      await store.save(r);
      const reason = !last
        ? 'no iteration ran'
        : last.verified
          ? `the tests failed (exit code ${last.tests?.exitCode})`
          : `the diff was refused: ${last.verifyError}`;
      throw errors.remediation_exhausted(
        { iterations: r.attempts.length, reason: reason.slice(0, 500) },
        {
          details: { iterations: r.attempts.length, lastDiff: last?.diff ?? null, lastOutput: last ? (last.tests?.output ?? last.verifyError ?? null) : null },
        },
      );
    }
    await store.transition(r, 'proposing');
    await this.propose(r, last!);
    await store.transition(r, 'completed', { note: r.pullRequest?.url });
    await this.d.events.append('ticket.completed', { jobId: r.id, ticket: r.ticket }, { tenant: r.tenant, subject: r.id });
    return r;
  }

  private async propose(r: TicketJob, last: NonNullable<TicketJob['attempts'][number]>): Promise<void> {
    const made = await this.d.repos.withCheckout(r.tenant, r.user, r.ticket.repo_name, async (c) => {
      const v = await verifyDiff(c, r.base!.commit, last.diff, roles[r.triage!.role]);
      if ('error' in v) throw errors.patch_rejected({ reason: v.error });
      const proposal = await proposePatch(c, {
        base: r.base!,
        diff: last.diff,
        files: v.files,
        title: `${r.ticket.title} (${r.ticket.ticket_id})`,
        body: pullRequestBody(r, last),
        draft: false,
        author: this.d.author,
        forge: this.d.forge,
      });
      return { proposal, files: v.files };
    });
    const { proposal, files } = made;
    r.branch = proposal.branch;
    r.commit = proposal.commit;
    if (proposal.pullRequest) r.pullRequest = { number: proposal.pullRequest.number, url: proposal.pullRequest.url };
    await this.d.store.save(r);
    const testsPassed = last.tests?.passed === true && last.tests.skipped !== true;
    await this.d.events.append(
      'ticket.proposed',
      {
        jobId: r.id,
        ticket: r.ticket,
        repo: r.ticket.repo_name,
        branch: proposal.branch,
        commit: proposal.commit,
        pullRequest: r.pullRequest ?? null,
        diff: last.diff,
        testsPassed,
        files: files.map((f) => f.path),
        additions: files.reduce((n, f) => n + f.additions, 0),
        deletions: files.reduce((n, f) => n + f.deletions, 0),
        testOutput: tail(last.tests?.output ?? '', 4000),
      },
      { tenant: r.tenant, subject: r.id },
    );
  }
}
