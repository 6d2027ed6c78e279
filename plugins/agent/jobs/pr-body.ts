import { roles } from '../roles/roles.js';
import { tail } from './loop.js';
import type { Attempt, TicketJob } from './ticket-store.js';

/** The pull request's description: the ticket, the agent, the iterations and the passing test run. */
export function pullRequestBody(r: TicketJob, last: Attempt): string {
  const role = r.triage ? roles[r.triage.role].title : 'agent';
  const lines = [
    `Automated fix for ticket **${r.ticket.ticket_id}**: ${r.ticket.title}${r.ticket.url ? ` (${r.ticket.url})` : ''}`,
    '',
    r.triage?.summary ?? '',
    '',
    `- Agent: ${role}`,
    `- Iterations: ${r.attempts.length} (${r.attempts.map((a) => `#${a.n} ${a.model ?? '?'} tier ${a.tier}: ${a.verified ? (a.tests?.passed ? 'tests passed' : 'tests failed') : 'refused'}`).join('; ')})`,
    last.tests?.skipped
      ? '- Tests: no test command was detected in the repository; nothing was run.'
      : `- Tests: \`${last.tests?.command.join(' ') ?? ''}\` passed in the sandbox`,
    `- Job: ${r.id}`,
  ];
  if (r.answers?.length) lines.push(`- Clarified by ${r.answers.length} answer(s) to the agent's questions`);
  if (last.tests && !last.tests.skipped)
    lines.push('', '<details><summary>Test output</summary>', '', '```', tail(last.tests.output, 3000).trim(), '```', '</details>');
  return lines.join('\n');
}
