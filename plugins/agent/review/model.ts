import { z } from 'tessera-runtime/plugin';
import type { Gateway } from '../gateway.js';
import type { ChatMessage } from '../llm-provider.js';
import type { Finding } from './checks.js';

/** What the model must answer: one JSON object (docs/agent-api.md, "Model review"). */
const modelAnswer = z.strictObject({
  verdict: z.enum(['approve', 'request_changes', 'comment']),
  summary: z.string().min(1).max(4000),
  findings: z
    .array(
      z.strictObject({
        file: z.string().min(1).max(1000).nullable(),
        line: z.number().int().min(1).nullable(),
        severity: z.enum(['high', 'medium', 'low', 'info']),
        category: z.enum(['security', 'correctness', 'tests', 'style']),
        message: z.string().min(1).max(2000),
      }),
    )
    .max(100),
});
export type ModelAnswer = z.output<typeof modelAnswer>;

export interface ModelReview {
  /** The model that answered (the last one asked when none answered usably), or null when no call was made. */
  model: string | null;
  tier: number | null;
  /** Calls made: 1, or 2 when the first answer was invalid. */
  calls: number;
  costUsd: number;
  answer: ModelAnswer | null;
  /** Why the model's review is absent, when it is. */
  note: string | null;
}

const maxDiffChars = 60_000;

const instructions = [
  'You are the pull request review agent of a code-remediation service.',
  'Review the unified diff for security, correctness, tests and style. Deterministic checks already ran; their findings are listed: do not repeat them.',
  'Answer with ONE JSON object and nothing else, of this shape:',
  '{"verdict": "approve" | "request_changes" | "comment", "summary": string, "findings": [{"file": string | null, "line": number | null, "severity": "high" | "medium" | "low" | "info", "category": "security" | "correctness" | "tests" | "style", "message": string}]}',
  '`line` is the line number in the new version of the file. Use "request_changes" only for a defect that must be fixed before merging.',
].join('\n');

function promptOf(diff: string, files: string[], findings: Finding[]): string {
  const shown = diff.length > maxDiffChars ? `${diff.slice(0, maxDiffChars)}\n[... ${diff.length - maxDiffChars} more characters not shown]` : diff;
  const known =
    findings.length === 0 ? 'none' : findings.map((f) => `- ${f.severity} ${f.category} ${f.file ?? ''}${f.line ? `:${f.line}` : ''}: ${f.message}`).join('\n');
  return `Files changed: ${files.join(', ') || 'none'}\n\nDeterministic findings:\n${known}\n\nDiff:\n${shown}`;
}

/** The JSON object of an answer: bare, or inside a fenced block, or the outermost braces of the text. */
export function parseModelAnswer(content: string | null): { ok: true; answer: ModelAnswer } | { ok: false; reason: string } {
  if (!content?.trim()) return { ok: false, reason: 'the answer was empty' };
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(content)?.[1];
  const text = fenced ?? content.slice(content.indexOf('{'), content.lastIndexOf('}') + 1);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, reason: `the answer is not JSON (${(err as Error).message})` };
  }
  const parsed = modelAnswer.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { ok: false, reason: `the answer does not have the asked shape: ${issue.path.join('.') || '(root)'}: ${issue.message}` };
  }
  return { ok: true, answer: parsed.data };
}

/**
 * Asks the model (through the gateway: the tier's candidates with failover) for its review. An answer
 * that is not the asked JSON is sent back once with the reason; a second bad answer, or a call that
 * fails, leaves the review to the deterministic checks with a note saying why.
 */
export async function askModel(
  gateway: Gateway,
  tenant: string,
  input: { model: string; diff: string; files: string[]; findings: Finding[]; signal?: AbortSignal },
): Promise<ModelReview> {
  const messages: ChatMessage[] = [
    { role: 'system', content: instructions },
    { role: 'user', content: promptOf(input.diff, input.files, input.findings) },
  ];
  const out: ModelReview = { model: null, tier: null, calls: 0, costUsd: 0, answer: null, note: null };
  for (let call = 1; call <= 2; call++) {
    let content: string | null;
    try {
      const { result, summary } = await gateway.complete({
        tenant,
        request: { model: input.model, messages, temperature: 0, response_format: { type: 'json_object' } },
        cache: false,
        ...(input.signal ? { signal: input.signal } : {}),
      });
      Object.assign(out, { model: summary.model, tier: summary.tier, calls: call, costUsd: out.costUsd + summary.costUsd });
      content = result.message.content;
    } catch (err) {
      out.calls = call;
      out.note = `the model review failed (${(err as Error).message}); the verdict is from the deterministic checks alone`;
      return out;
    }
    const parsed = parseModelAnswer(content);
    if (parsed.ok) {
      out.answer = parsed.answer;
      return out;
    }
    if (call === 2) {
      out.note = `the model answered twice without a usable review (${parsed.reason}); the verdict is from the deterministic checks alone`;
      return out;
    }
    messages.push(
      { role: 'assistant', content },
      { role: 'user', content: `That answer cannot be used: ${parsed.reason}. Answer again with only the JSON object of the asked shape.` },
    );
  }
  return out;
}

const strictness = { approve: 0, comment: 1, request_changes: 2 } as const;

/** The stricter of two verdicts. */
export function stricter<V extends keyof typeof strictness>(a: V, b: V): V {
  return strictness[a] >= strictness[b] ? a : b;
}

/** The model's findings as review findings (rule `model`), without those a deterministic check already reports at the same place. */
export function modelFindings(answer: ModelAnswer, deterministic: Finding[]): Finding[] {
  const seen = new Set(deterministic.map((f) => `${f.file}:${f.line}:${f.category}`));
  return answer.findings
    .filter((f) => !seen.has(`${f.file}:${f.line}:${f.category}`))
    .map((f) => ({ file: f.file, line: f.line, severity: f.severity, category: f.category, rule: 'model', message: f.message }));
}
