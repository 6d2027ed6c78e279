import { writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { git, gitRaw } from './git-fixture.js';
import type { ModelListServer } from './provider-server.js';
import type { AgentApp } from './support.js';

/** What the scripted model answers for one ticket (matched by its id in the prompt): triage JSON objects, then diffs, in order. */
export interface TicketScript {
  triage: Array<Record<string, unknown>>;
  patches: string[];
  /** Delay of each triage answer. */
  triageDelayMs?: number;
}

/**
 * Makes the local OpenAI-compatible server answer like the agents' models: the triage prompt gets
 * the ticket's next triage object as JSON, a patching prompt its next diff in a ```diff fence.
 * A ticket is found by `Ticket <id>:` in the prompt, a synchronous remediation by its key anywhere in it.
 */
export function scriptProvider(provider: ModelListServer, scripts: Map<string, TicketScript>): void {
  provider.defaultAnswer = (_model, body) => {
    const system = String(body.messages[0]?.content ?? '');
    const prompt = String(body.messages[1]?.content ?? '');
    const key = /Ticket (\S+):/.exec(prompt)?.[1] ?? [...scripts.keys()].find((k) => prompt.includes(k));
    const script = key ? scripts.get(key) : undefined;
    if (!script) return { content: 'I do not know this ticket.', usage: { prompt: 50, completion: 5 } };
    if (system.includes('triage and clarity agent')) {
      const next = script.triage.shift() ?? { actionable: true, summary: 'fix it' };
      return { content: JSON.stringify(next), usage: { prompt: 400, completion: 60 }, ...(script.triageDelayMs ? { delayMs: script.triageDelayMs } : {}) };
    }
    const diff = script.patches.shift();
    return { content: diff === undefined ? 'no more ideas' : `Here is the fix.\n\n\`\`\`diff\n${diff}\`\`\`\n`, usage: { prompt: 1500, completion: 200 } };
  };
}

/** The `git diff` that turns the work tree's files into `changes` (the tree is reset afterwards). */
export function diffOf(work: string, changes: Record<string, string>): string {
  for (const [file, text] of Object.entries(changes)) {
    mkdirSync(path.dirname(path.join(work, file)), { recursive: true });
    writeFileSync(path.join(work, file), text);
  }
  git(work, 'add', '-A');
  const diff = gitRaw(work, 'diff', '--cached');
  git(work, 'reset', '-q', '--hard', 'HEAD');
  git(work, 'clean', '-qfd');
  return diff;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `GET /api/v1/jobs/{id}` until the job is in one of `states`. */
export async function waitForState(t: AgentApp, id: string, states: string[], timeoutMs = 90_000, headers: Record<string, string> = {}): Promise<any> {
  const until = Date.now() + timeoutMs;
  let last: any;
  for (;;) {
    const res = await t.call('GET', `/api/v1/jobs/${id}`, undefined, headers);
    last = res.body.job;
    if (last && states.includes(last.state)) return last;
    if (Date.now() > until) throw new Error(`job ${id} did not reach ${states.join('|')}: ${JSON.stringify(last?.timeline ?? res.body)}`);
    await sleep(100);
  }
}

/** The states of a job's timeline, in order. */
export const statesOf = (job: any): string[] => job.timeline.map((e: { state: string }) => e.state);

/** Sets the tenant's provider key so ticket jobs may call models. */
export async function configureProvider(t: AgentApp, headers: Record<string, string> = {}): Promise<void> {
  const res = await t.call('POST', '/api/v1/models/config', { apiKey: 'sk-test-tickets-0001' }, headers);
  expect(res.status).toBe(200);
}
