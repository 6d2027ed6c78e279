import { errors } from '../errors.js';
import { chooseRole, isRoleId, triageRole, type RoleId } from '../roles/roles.js';
import { parseJsonObject, type AgentModel, type ModelAnswer } from './model.js';
import type { Question, Ticket } from './ticket-store.js';

export interface TriageResult {
  actionable: boolean;
  summary: string;
  role: RoleId;
  roleSource: 'model' | 'heuristic';
  files: string[];
  questions: Question[];
}

const str = (v: unknown, max = 2000): string | undefined => (typeof v === 'string' && v.trim() ? v.trim().slice(0, max) : undefined);

/** The model's questions in the contract's shape; ids are made up where the model left them out. */
export function normaliseQuestions(value: unknown): Question[] {
  if (!Array.isArray(value)) return [];
  const out: Question[] = [];
  for (const [i, q] of value.slice(0, 5).entries()) {
    if (!q || typeof q !== 'object') continue;
    const o = q as Record<string, unknown>;
    const question = str(o.question, 1000);
    if (!question) continue;
    const choices = (Array.isArray(o.choices) ? o.choices : [])
      .slice(0, 8)
      .map((c, j) => {
        const co = (c && typeof c === 'object' ? c : { label: c }) as Record<string, unknown>;
        const label = str(co.label, 300) ?? str(co.text, 300);
        return label ? { id: str(co.id, 60) ?? `c${j + 1}`, label } : undefined;
      })
      .filter((c): c is { id: string; label: string } => c !== undefined);
    const allowFreeText = typeof o.allowFreeText === 'boolean' ? o.allowFreeText : choices.length === 0;
    out.push({ id: str(o.id, 60) ?? `q${i + 1}`, question, choices, allowFreeText: allowFreeText || choices.length === 0 });
  }
  return out;
}

/** The ticket as the prompts show it. */
export function ticketText(ticket: Ticket): string {
  const head = [`Ticket ${ticket.ticket_id}: ${ticket.title}`];
  if (ticket.labels?.length) head.push(`Labels: ${ticket.labels.join(', ')}`);
  return `${head.join('\n')}\n\n${ticket.description}`;
}

/**
 * The triage-and-clarity agent: one model call answering JSON (asked again once if the answer is
 * not JSON). The role is the model's when it names a known one, else `chooseRole`'s from the ticket
 * and the files the model and the code graph point at.
 */
export async function triageTicket(
  model: AgentModel,
  o: { tenant: string; ticket: Ticket; context: string; groundedFiles: string[]; paths: Set<string>; signal?: AbortSignal | undefined },
  charged: (a: ModelAnswer) => void,
): Promise<TriageResult> {
  const messages = [
    { role: 'system' as const, content: triageRole.instructions },
    { role: 'user' as const, content: `Repository: ${o.ticket.repo_name}\n\n${ticketText(o.ticket)}\n\n${o.context}` },
  ];
  let parsed: Record<string, unknown> | undefined;
  for (let i = 0; i < 2 && !parsed; i++) {
    const answer = await model.call(o.tenant, triageRole.tiers[0]!, messages, o.signal);
    charged(answer);
    parsed = parseJsonObject(answer.content);
    if (!parsed) {
      messages.push({ role: 'assistant' as never, content: answer.content }, { role: 'user', content: 'Answer with the JSON object only.' });
    }
  }
  if (!parsed) throw errors.model_answer_invalid({ reason: 'the triage answer is not a JSON object' });
  const files = (Array.isArray(parsed.files) ? parsed.files : []).filter((f): f is string => typeof f === 'string' && o.paths.has(f)).slice(0, 20);
  const questions = normaliseQuestions(parsed.questions);
  let actionable = parsed.actionable !== false;
  if (!actionable && questions.length === 0) actionable = true;
  if (actionable) questions.length = 0;
  const role = isRoleId(parsed.role) ? parsed.role : chooseRole(o.ticket, [...files, ...o.groundedFiles]);
  return {
    actionable,
    summary: str(parsed.summary) ?? o.ticket.title,
    role,
    roleSource: isRoleId(parsed.role) ? 'model' : 'heuristic',
    files,
    questions,
  };
}
