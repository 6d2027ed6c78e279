import type { EventLog } from 'tessera-runtime/plugin';
import { errors } from '../errors.js';
import { ForgeError, type ForgeClient } from '../forge/client.js';
import type { Gateway } from '../gateway.js';
import { commitReader } from '../patches/tree-reader.js';
import type { Repositories } from '../repos/repositories.js';
import { baseCommit } from '../repos/routes.js';
import { deterministicChecks, verdictOf, type Finding } from './checks.js';
import { askModel, modelFindings, stricter } from './model.js';

export interface ReviewDeps {
  repos: Repositories;
  forge?: ForgeClient;
  gateway?: Gateway;
  /** Whether the tenant has a model provider (an API key or its own base URL in `/api/v1/models/config`). */
  providerConfigured(tenant: string): boolean;
  events: EventLog;
}

export interface ReviewInput {
  tenant: string;
  user: string;
  repo: string;
  pullNumber?: number;
  diff?: string;
  baseBranch?: string;
  /** The gateway's `model`: a tier, a task class or a model id. */
  model: string;
  post: boolean;
  signal?: AbortSignal;
}

export type Verdict = 'approve' | 'request_changes' | 'comment';

export interface ReviewResult {
  verdict: Verdict;
  summary: string;
  score: number;
  findings: Finding[];
  files: string[];
  baseCommit: string;
  /** The model whose review is merged in, or null (no provider, or no usable answer). */
  model: string | null;
  modelReview: { tier: number | null; calls: number; costUsd: number; verdict: Verdict | null } | null;
  /** Why the model's review is missing when a provider is configured. */
  note: string | null;
  posted: { reviewId: number } | null;
}

const forgeEvent = { approve: 'APPROVE', request_changes: 'REQUEST_CHANGES', comment: 'COMMENT' } as const;

function summaryOf(verdict: string, score: number, files: string[], findings: Finding[]): string {
  const bySeverity = ['high', 'medium', 'low'].map((s) => `${findings.filter((f) => f.severity === s).length} ${s}`).join(', ');
  return `${verdict} (score ${score}): ${files.length} file(s) changed; findings: ${bySeverity}.`;
}

/** The review as posted on the pull request (markdown). */
export function reviewText(r: Pick<ReviewResult, 'summary' | 'findings' | 'model' | 'note'>): string {
  const lines = r.findings.map((f) => `- **${f.severity}** ${f.category}${f.file ? ` \`${f.file}${f.line ? `:${f.line}` : ''}\`` : ''}: ${f.message}`);
  const by = r.model ? `deterministic checks and ${r.model}` : 'deterministic checks';
  return [`Tessera review (${by}): ${r.summary}`, ...(r.note ? ['', `Note: ${r.note}`] : []), '', ...lines].join('\n');
}

const forgeCall = async <T>(fn: () => Promise<T>): Promise<T> => {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ForgeError) throw errors.forge_failed({ reason: err.message });
    throw err;
  }
};

/**
 * The review agent: the deterministic checks on the diff against its base tree, then (with a provider)
 * the model's structured review merged in; the verdict is the stricter of the two; optionally posted.
 */
export async function reviewChange(d: ReviewDeps, input: ReviewInput): Promise<ReviewResult> {
  const checked = await d.repos.withCheckout(input.tenant, input.user, input.repo, async (c) => {
    let diff = input.diff;
    let base = input.baseBranch;
    if (input.pullNumber !== undefined) {
      const forge = d.forge;
      if (!forge) throw errors.forge_not_configured({ reason: 'a pull request by number is read from the forge' });
      const pr = await forgeCall(() => forge.getPullRequest(c.ref.owner, c.ref.name, input.pullNumber!));
      if (!pr) throw errors.pull_request_not_found({ number: input.pullNumber, repo: c.ref.full });
      base ??= pr.base;
      diff = await forgeCall(() => forge.getPullRequestDiff(c.ref.owner, c.ref.name, input.pullNumber!));
    }
    const at = await baseCommit(c, base);
    const { findings, files } = await deterministicChecks(diff!, await commitReader(c, at.commit));
    return { ref: c.ref, diff: diff!, findings, files, baseCommit: at.commit };
  });
  if (input.post && (input.pullNumber === undefined || !d.forge))
    throw errors.forge_not_configured({ reason: 'posting a review needs pullNumber and the forge' });

  let findings = checked.findings;
  let verdict: Verdict = verdictOf(findings).verdict;
  let modelReview: ReviewResult['modelReview'] = null;
  let model: string | null = null;
  let note: string | null = null;
  let modelSummary = '';
  if (d.gateway && d.providerConfigured(input.tenant)) {
    const m = await askModel(d.gateway, input.tenant, {
      model: input.model,
      diff: checked.diff,
      files: checked.files,
      findings,
      ...(input.signal ? { signal: input.signal } : {}),
    });
    modelReview = { tier: m.tier, calls: m.calls, costUsd: m.costUsd, verdict: m.answer?.verdict ?? null };
    note = m.note;
    if (m.answer) {
      model = m.model;
      findings = [...findings, ...modelFindings(m.answer, findings)];
      verdict = stricter(verdictOf(findings).verdict, m.answer.verdict);
      modelSummary = ` ${m.model}: ${m.answer.summary}`;
    }
  }
  const score = verdictOf(findings).score;
  const result: ReviewResult = {
    verdict,
    summary: summaryOf(verdict, score, checked.files, findings) + modelSummary,
    score,
    findings,
    files: checked.files,
    baseCommit: checked.baseCommit,
    model,
    modelReview,
    note,
    posted: null,
  };
  if (input.post) {
    const forge = d.forge!;
    const { id } = await forgeCall(() =>
      forge.createReview(checked.ref.owner, checked.ref.name, input.pullNumber!, { event: forgeEvent[verdict], body: reviewText(result) }),
    );
    result.posted = { reviewId: id };
  }
  await d.events.append(
    'review.completed',
    { repo: checked.ref.full, pullNumber: input.pullNumber ?? null, verdict, score, findings: findings.length, model, note },
    { tenant: input.tenant, subject: checked.ref.full },
  );
  return result;
}
