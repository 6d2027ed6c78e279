import type { ChatMessage } from '../llm-provider.js';
import { commitReader } from '../patches/tree-reader.js';
import { verifyPatch, type PatchedFile } from '../patches/verify.js';
import type { Checkout, Repositories } from '../repos/repositories.js';
import { deterministicChecks } from '../review/checks.js';
import { tierOf, type Role } from '../roles/roles.js';
import type { Sandbox } from '../sandbox/run.js';
import { baseTree } from './base-tree.js';
import { extractDiff, type AgentModel, type ModelAnswer } from './model.js';
import type { Attempt, TestsOutcome, TicketState } from './ticket-store.js';

/** What the patch → verify → test loop works on, and how it reports (the ticket job persists at each hook). */
export interface LoopSession {
  tenant: string;
  user: string;
  repo: string;
  baseCommit: string;
  role: Role;
  /** The task: the ticket (title, description, answers) or the remediation instructions. */
  task: string;
  /** The code-graph grounding of the prompt. */
  context: string;
  attempts: Attempt[];
  maxIterations: number;
  startTier?: number | undefined;
  signal?: AbortSignal | undefined;
  enter(state: Extract<TicketState, 'patching' | 'testing'>, note?: string): Promise<void>;
  charged(answer: ModelAnswer): void;
  checkpoint(): Promise<void>;
}

export interface LoopDeps {
  repos: Repositories;
  sandbox: Sandbox;
  model: AgentModel;
}

export interface LoopOutcome {
  ok: boolean;
  attempt: Attempt | undefined;
}

const keepOutput = 12_000;

/** The tail of a test run's output (where pytest and node --test print their summary and the failure). */
export function tail(text: string, n = keepOutput): string {
  return text.length > n ? `... (${text.length - n} characters cut)\n${text.slice(-n)}` : text;
}

/** A stopped job (cancel, shutdown, timeout) must not be recorded as a failed test or a bad diff. */
function stopIfAborted(signal?: AbortSignal): void {
  if (signal?.aborted)
    throw signal.reason instanceof Error ? signal.reason : Object.assign(new Error(`stopped: ${String(signal.reason)}`), { code: String(signal.reason) });
}

/** Verifies a diff on the base commit (and the role's security checks); answers the new files or the reason it is refused. */
export async function verifyDiff(c: Checkout, baseCommit: string, diff: string, role: Role): Promise<{ files: PatchedFile[] } | { error: string }> {
  if (!diff.trim()) return { error: 'the answer holds no unified diff (a ```diff fenced block was expected)' };
  const read = await commitReader(c, baseCommit);
  const v = await verifyPatch(diff, read);
  if (!v.ok) return { error: v.problems.map((p) => `${p.file ? `${p.file}: ` : ''}${p.reason}: ${p.message}`).join('; ') };
  if (role.tools.includes('security-checks')) {
    const { findings } = await deterministicChecks(diff);
    const blocking = findings.filter((f) => f.category === 'security' && f.severity === 'high');
    if (blocking.length) return { error: blocking.map((f) => `${f.file ?? ''}:${f.line ?? ''} ${f.rule}: ${f.message}`).join('; ') };
  }
  return { files: v.files };
}

function feedback(a: Attempt): string {
  if (!a.verified)
    return `Your diff (iteration ${a.n}) was refused before any test ran: ${a.verifyError}\nSend a corrected diff against the original files shown above.`;
  const t = a.tests!;
  return `Your diff (iteration ${a.n}) applied, but the tests failed (exit code ${t.exitCode}, \`${t.command.join(' ')}\`):\n\`\`\`\n${tail(t.output, 6000)}\n\`\`\`\nAnalyse the trace and send a new complete diff against the original files (not on top of your previous diff).`;
}

/** The messages of patching iteration `n`: role, task, grounding, then the previous attempts and what went wrong with each (the last two). */
export function patchMessages(s: Pick<LoopSession, 'role' | 'task' | 'context' | 'attempts' | 'repo'>): ChatMessage[] {
  const messages: ChatMessage[] = [
    { role: 'system', content: s.role.instructions },
    { role: 'user', content: `Repository: ${s.repo}\n\n${s.task}\n\n${s.context}` },
  ];
  for (const a of s.attempts.slice(-2)) {
    messages.push({ role: 'assistant', content: a.diff ? `\`\`\`diff\n${a.diff}\`\`\`` : '(no diff)' });
    messages.push({ role: 'user', content: feedback(a) });
  }
  return messages;
}

/** Runs the tests of the base tree with the verified files laid over it, in the sandbox. */
export async function runTests(d: LoopDeps, s: Pick<LoopSession, 'tenant' | 'user' | 'signal'>, tree: string, files: PatchedFile[]): Promise<TestsOutcome> {
  const run = await d.sandbox.run({
    tenant: s.tenant,
    user: s.user,
    source: tree,
    files: new Map(files.map((f) => [f.path, f.after] as [string, string | null])),
    ...(s.signal ? { signal: s.signal } : {}),
  });
  stopIfAborted(s.signal);
  if (run.runner === null) return { passed: true, skipped: true, exitCode: null, output: run.output, command: [] };
  return { passed: run.ok, exitCode: run.exitCode, output: tail(run.output), command: run.command };
}

/**
 * The remediation loop: the role's model writes a diff; it is verified (parses, applies with no
 * fuzz, stays inside the repository, no new syntax errors, the role's security checks) and, when
 * it passes, tested in the sandbox; a refusal or a failing run goes back to the model with the
 * reason or the trace, one tier up the role's ladder each iteration, until the tests pass or the
 * iterations run out. Resumable: an attempt verified but not yet tested is tested first.
 */
export async function remediationLoop(d: LoopDeps, s: LoopSession): Promise<LoopOutcome> {
  // The verified files of the attempt just written, kept for its test run (a resumed run verifies again).
  let ready: { n: number; files: PatchedFile[]; tree: string } | undefined;
  for (;;) {
    stopIfAborted(s.signal);
    const last = s.attempts.at(-1);
    if (last?.tests?.passed) return { ok: true, attempt: last };
    if (last?.verified && !last.tests) {
      await s.enter('testing', `iteration ${last.n}`);
      // The workspace is locked only to read the base; the run itself works on a copy.
      const prepared =
        ready?.n === last.n
          ? ready
          : await d.repos.withCheckout(s.tenant, s.user, s.repo, async (c) => {
              const v = await verifyDiff(c, s.baseCommit, last.diff, s.role);
              return 'error' in v ? v : { files: v.files, tree: await baseTree(c, s.baseCommit) };
            });
      last.tests =
        'error' in prepared ? { passed: false, exitCode: null, output: prepared.error, command: [] } : await runTests(d, s, prepared.tree, prepared.files);
      ready = undefined;
      await s.checkpoint();
      continue;
    }
    if (s.attempts.length >= s.maxIterations) return { ok: false, attempt: last };
    const n = s.attempts.length + 1;
    const tier = tierOf(s.role, n, s.startTier);
    await s.enter('patching', `iteration ${n} on tier ${tier}`);
    const answer = await d.model.call(s.tenant, tier, patchMessages(s), s.signal);
    s.charged(answer);
    const diff = extractDiff(answer.content);
    const verdict = await d.repos.withCheckout(s.tenant, s.user, s.repo, async (c) => {
      const v = await verifyDiff(c, s.baseCommit, diff, s.role);
      return 'error' in v ? v : { files: v.files, tree: await baseTree(c, s.baseCommit) };
    });
    stopIfAborted(s.signal);
    if (!('error' in verdict)) ready = { n, ...verdict };
    s.attempts.push({
      n,
      tier: answer.tier,
      model: answer.model,
      diff,
      verified: !('error' in verdict),
      ...('error' in verdict ? { verifyError: verdict.error } : {}),
      costUsd: answer.costUsd,
      at: new Date().toISOString(),
    });
    await s.checkpoint();
  }
}
