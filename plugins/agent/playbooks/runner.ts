import type { EventLog, LoggedEvent, Logger, StoreNamespace } from 'tessera-runtime/plugin';
import { ForgeError, type ForgeClient } from '../forge/client.js';
import { reviewChange, type ReviewDeps, type ReviewResult } from '../review/service.js';
import type { PlaybookConfigs } from './config.js';
import { mergeBlockers, type Blocker } from './criteria.js';
import type { TicketOrigins, TrackerComments } from './tracker.js';

/** `ticket.proposed` (docs/agent-api.md, the jobs contract). */
export interface ProposedEvent {
  jobId: string;
  ticket: { ticket_id: string; repo_name: string; title: string; labels?: string[]; url?: string };
  repo: string;
  branch: string;
  commit: string;
  /** null when no forge is configured: the branch was pushed, no pull request opened. */
  pullRequest: { number: number; url: string } | null;
  diff: string;
  testsPassed: boolean;
  files: string[];
  additions: number;
  deletions: number;
}

interface StateEvent {
  jobId: string;
  state: string;
  previous?: string;
  role?: string;
  note?: string;
}

export interface MergeDecision {
  jobId: string;
  repo: string;
  pullRequest: { number: number; url: string } | null;
  merged: boolean;
  sha: string | null;
  verdict: ReviewResult['verdict'] | null;
  reviewModel: string | null;
  blockers: Array<Blocker | { criterion: 'disabled' | 'review_failed' | 'merge_failed' | 'no_pull_request'; message: string }>;
  decidedAt: string;
}

export interface RunnerDeps {
  store: StoreNamespace;
  events: EventLog;
  log: Logger;
  configs: PlaybookConfigs;
  origins: TicketOrigins;
  comments: TrackerComments;
  review: ReviewDeps;
  forge?: ForgeClient;
}

/** An issue number from a ticket id of the form `owner/repo#12` (what GitHub stories get). */
const issueOf = (ticketId: string, repo: string): number | undefined => {
  const m = /^(.+)#(\d+)$/.exec(ticketId);
  return m && m[1] === repo ? Number(m[2]) : undefined;
};

/**
 * The playbooks' reaction to the ticket pipeline: progress comments on `ticket.state`, and on
 * `ticket.proposed` the PR link, the review, the auto-merge criteria and the merge (or a comment
 * saying why it waits for a human). It follows the plugin's event log from a stored cursor, so
 * events appended while the service was down are handled after a restart, each job's decision once.
 */
export class PlaybookRunner {
  private readonly cursor;
  private readonly decisions;

  constructor(private readonly d: RunnerDeps) {
    this.cursor = d.store.db('playbooks-cursor');
    this.decisions = d.store.db('playbooks-merges');
  }

  decision(tenant: string, jobId: string): MergeDecision | undefined {
    return this.decisions.get([tenant, jobId]) as MergeDecision | undefined;
  }

  /** Follows the log until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    const after = (this.cursor.get('events') as number | undefined) ?? this.d.events.lastId();
    try {
      for await (const item of this.d.events.follow({ after, signal, types: ['ticket.proposed', 'ticket.state'] })) {
        if (!('type' in item)) continue;
        try {
          if (item.type === 'ticket.proposed') await this.proposed(item as LoggedEvent<ProposedEvent>);
          else await this.state(item as LoggedEvent<StateEvent>);
        } catch (err) {
          this.d.log.error({ err, event: item.id, type: item.type }, 'a playbook step failed');
        }
        await this.cursor.put('events', item.id);
      }
    } catch (err) {
      if (!signal.aborted) throw err;
    }
  }

  private async state(e: LoggedEvent<StateEvent>): Promise<void> {
    const cfg = this.d.configs.get(e.tenant).autoComment;
    const origin = this.d.origins.get(e.tenant, e.data.jobId);
    if (!origin || !cfg.enabled || !(cfg.states as string[]).includes(e.data.state)) return;
    const note = e.data.note ? `: ${e.data.note}` : '';
    await this.d.comments.post(
      e.tenant,
      e.data.jobId,
      { repo: origin.repo, number: origin.issue, kind: 'issue' },
      `Tessera agent: job \`${e.data.jobId}\` is now **${e.data.state}**${note}.`,
    );
  }

  private async proposed(e: LoggedEvent<ProposedEvent>): Promise<void> {
    const p = e.data;
    const tenant = e.tenant;
    if (this.decision(tenant, p.jobId)) return;
    const cfg = this.d.configs.get(tenant);
    const origin = this.d.origins.get(tenant, p.jobId);
    const ticketIssue = origin ? (origin.repo === p.repo ? origin.issue : undefined) : issueOf(p.ticket.ticket_id, p.repo);
    const toTicket = (body: string) =>
      ticketIssue === undefined ? Promise.resolve(false) : this.d.comments.post(tenant, p.jobId, { repo: p.repo, number: ticketIssue, kind: 'issue' }, body);
    const pr = p.pullRequest;
    if (!pr) {
      // No forge: the branch is pushed to the remote and a human opens the pull request.
      const decision: MergeDecision = {
        jobId: p.jobId,
        repo: p.repo,
        pullRequest: null,
        merged: false,
        sha: null,
        verdict: null,
        reviewModel: null,
        blockers: [{ criterion: 'no_pull_request', message: `no forge is configured: branch ${p.branch} was pushed and no pull request was opened` }],
        decidedAt: new Date().toISOString(),
      };
      await this.decisions.put([tenant, p.jobId], decision);
      await this.d.events.append('playbooks.merge_decision', decision, { tenant, subject: p.jobId });
      if (cfg.autoComment.enabled && cfg.autoComment.pullRequest)
        await toTicket(`Tessera agent pushed branch ${p.branch} for this ticket (commit ${p.commit}); no forge is configured, so no pull request was opened.`);
      return;
    }
    const toPull = (body: string) => this.d.comments.post(tenant, p.jobId, { repo: p.repo, number: pr.number, kind: 'pull' }, body);

    if (cfg.autoComment.enabled && cfg.autoComment.pullRequest) {
      await toTicket(`Tessera agent opened pull request #${pr.number} for this ticket: ${pr.url}`);
    }
    const decision: MergeDecision = {
      jobId: p.jobId,
      repo: p.repo,
      pullRequest: pr,
      merged: false,
      sha: null,
      verdict: null,
      reviewModel: null,
      blockers: [],
      decidedAt: '',
    };
    if (!cfg.autoMerge.enabled) {
      decision.blockers.push({ criterion: 'disabled', message: 'auto-merge is disabled in the playbook configuration' });
    } else {
      let review: ReviewResult | undefined;
      try {
        review = await reviewChange(this.d.review, {
          tenant,
          user: 'playbooks',
          repo: p.repo,
          pullNumber: pr.number,
          model: cfg.review.model,
          post: cfg.review.post && this.d.forge !== undefined,
        });
        decision.verdict = review.verdict;
        decision.reviewModel = review.model;
      } catch (err) {
        decision.blockers.push({ criterion: 'review_failed', message: `the review failed: ${(err as Error).message}` });
      }
      const labels = [...(p.ticket.labels ?? []), ...(origin?.labels ?? [])];
      decision.blockers.push(
        ...mergeBlockers(cfg.autoMerge, {
          testsPassed: p.testsPassed,
          files: p.files,
          additions: p.additions,
          deletions: p.deletions,
          labels,
          verdict: decision.verdict,
        }).filter((b) => !(review === undefined && b.criterion === 'review_verdict')),
      );
      if (decision.blockers.length === 0) {
        const [owner, name] = p.repo.split('/') as [string, string];
        try {
          if (!this.d.forge) throw new Error('no forge is configured');
          const merged = await this.d.forge.mergePullRequest(owner, name, pr.number, {
            method: cfg.autoMerge.method,
            title: `${p.ticket.title} (#${pr.number})`,
          });
          decision.merged = merged.merged;
          decision.sha = merged.sha ?? null;
          if (!merged.merged) decision.blockers.push({ criterion: 'merge_failed', message: 'the forge did not merge the pull request' });
        } catch (err) {
          const message = err instanceof ForgeError ? err.message : (err as Error).message;
          decision.blockers.push({ criterion: 'merge_failed', message: `merging failed: ${message}` });
        }
      }
    }
    decision.decidedAt = new Date().toISOString();
    await this.decisions.put([tenant, p.jobId], decision);
    await this.d.events.append('playbooks.merge_decision', decision, { tenant, subject: p.jobId });
    if (!cfg.autoComment.enabled || !cfg.autoComment.mergeDecision || decision.blockers[0]?.criterion === 'disabled') return;
    const text = decision.merged
      ? `Tessera merged pull request #${pr.number} automatically (${cfg.autoMerge.method}, ${decision.sha}): tests passed, review verdict "${decision.verdict}", every auto-merge criterion held.`
      : [
          `Tessera did not merge pull request #${pr.number} automatically; it waits for a human review:`,
          ...decision.blockers.map((b) => `- ${b.message}`),
        ].join('\n');
    await toPull(text);
    await toTicket(text);
  }
}
