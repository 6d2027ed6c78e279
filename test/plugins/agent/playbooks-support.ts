import type { EventLog } from '../../../runtime/events/event-types.js';
import type { JobsService } from '../../../runtime/jobs/job-types.js';
import type { AgentApp } from './support.js';

/**
 * The agent plugin's event log and jobs, as its own code sees them: the tests append the ticket
 * pipeline's contract events (`ticket.proposed`, `ticket.state`) the way that pipeline does, and
 * read the ticket jobs the story webhook enqueued.
 */
export function agentRuntime(t: AgentApp): { events: EventLog; jobs: JobsService } {
  const plugins = (t.app as unknown as { plugins: Array<{ plugin: { name: string }; events: EventLog; jobs: { view(): JobsService } }> }).plugins;
  const agent = plugins.find((p) => p.plugin.name === 'agent')!;
  return { events: agent.events, jobs: agent.jobs.view() };
}

/** Polls `fn` until it returns a value other than undefined (or throws after `timeoutMs`). */
export async function until<T>(fn: () => T | undefined | Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
}
