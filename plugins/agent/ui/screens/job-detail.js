import { html, useState } from '../lib/preact.js';
import { request } from '../lib/api.js';
import { Badge, Button, ErrorBox, Loading, Notice, Page, Table, useEventSource, useResource } from '../lib/components.js';
import { DiffView } from '../lib/diff-view.js';
import { Link } from '../lib/router.js';
import { getJob, jobsNotServed, safeUrl, stateKind, stateLabel, terminal, ticketEvents, ticketFeed, tokensText } from './jobs-api.js';
import { usd, when } from './money.js';
import { QuestionForm } from './question-form.js';
import { useBatched } from './live.js';

function TestOutput({ tests, label }) {
  return html`<p>
      <${Badge} kind=${tests.passed ? 'good' : 'bad'}>${tests.passed ? 'passed' : 'failed'}<//> exit code ${tests.exitCode}
      ${tests.command ? html` · <code>${Array.isArray(tests.command) ? tests.command.join(' ') : tests.command}</code>` : null}
      ${tests.skipped ? html` · no test command was detected` : null}
    </p>
    <pre class="test-output" tabindex="0" aria-label=${label}>${tests.output}</pre>`;
}

/**
 * One ticket job: state, ticket, the pull request, the timeline with the role, model, tier, tokens
 * and cost of each step, the diff side by side, the test output, each attempt, its questions and
 * answers; cancel while it runs. Re-read on each of its `ticket.*` events.
 */
export default function JobDetail({ params }) {
  const job = useResource(() => getJob(params.id), [params.id]);
  const [cancelError, setCancelError] = useState(null);
  useEventSource(ticketFeed(params.id), ticketEvents, useBatched(job.reload));
  const cancel = async () => {
    setCancelError(null);
    try {
      await request('/api/v1/jobs/' + encodeURIComponent(params.id) + '/cancel', { method: 'POST' });
      job.reload();
    } catch (e) {
      setCancelError(e);
    }
  };
  const j = job.data;
  if (job.error && jobsNotServed(job.error)) return html`<${Page} title="Job"><${Notice} kind="warn">This agent does not serve ticket jobs.<//><//>`;
  if (!j) return html`<${Page} title=${'Job ' + params.id}>${job.error ? html`<${ErrorBox} error=${job.error} />` : html`<${Loading} />`}<//>`;
  const pr = j.pullRequest && safeUrl(j.pullRequest.url) ? j.pullRequest : null;
  const timeline = j.timeline || [];
  const roles = [...new Set(timeline.map((s) => s.role).filter(Boolean))];
  const attempts = j.attempts || [];
  const diff = j.diff || (attempts.length ? attempts[attempts.length - 1].diff : null);
  const ticketUrl = j.ticket.url && safeUrl(j.ticket.url);
  return html`<${Page} title=${j.ticket.title} actions=${terminal.has(j.state) ? null : html`<${Button} kind="danger" onClick=${cancel}>Cancel the job<//>`}>
    <p class="meta-line">
      <${Badge} kind=${stateKind(j.state)}>${stateLabel(j.state)}<//>
      <span>Job <code>${j.id}</code></span>
      <span>Ticket <code>${j.ticket.ticket_id}</code></span>
      ${ticketUrl ? html`<a href=${ticketUrl} rel="noopener noreferrer" target="_blank">Ticket source</a>` : null}
      <span>Repository <code>${j.ticket.repo_name}</code></span>
      <span>${'Total cost ' + usd(j.costUsd)}</span>
      <${Link} href="/jobs">All jobs<//>
    </p>
    <${ErrorBox} error=${cancelError} />
    ${j.error ? html`<${ErrorBox} error=${j.error} />` : null}
    ${
      pr
        ? html`<p class="meta-line">
            <span>Pull request <a href=${pr.url} rel="noopener noreferrer" target="_blank">#${pr.number}</a></span>
            ${j.branch ? html`<span>Branch <code>${j.branch}</code></span>` : null}
            ${j.commit ? html`<span>Commit <code>${j.commit.slice(0, 12)}</code></span>` : null}
          </p>`
        : null
    }
    <section class="card" aria-labelledby="ticket">
      <h2 id="ticket">Ticket</h2>
      ${j.ticket.description ? html`<p class="pre-line">${j.ticket.description}</p>` : html`<p class="muted">No description.</p>`}
      ${j.ticket.labels && j.ticket.labels.length ? html`<p>${j.ticket.labels.map((l) => html`<${Badge}>${l}<//> `)}</p>` : null}
    </section>
    ${
      j.state === 'awaiting_clarification' && j.questions && j.questions.length
        ? html`<section class="card" aria-labelledby="job-questions">
            <h2 id="job-questions">Questions waiting for an answer</h2>
            <${QuestionForm} jobId=${j.id} questions=${j.questions} onAnswered=${() => job.reload()} />
          </section>`
        : null
    }
    <section class="card" aria-labelledby="timeline">
      <h2 id="timeline">Timeline</h2>
      <p>Roles involved: ${roles.length ? roles.join(', ') : 'none yet'}.</p>
      <${Table}
        caption="Steps with their role, model, tokens and cost"
        rows=${timeline}
        empty="No step yet."
        columns=${[
          { label: 'When', render: (s) => when(s.at) },
          { label: 'State', render: (s) => html`<${Badge} kind=${stateKind(s.state)}>${stateLabel(s.state)}<//>` },
          { label: 'Role', render: (s) => s.role || '–' },
          { label: 'Model', render: (s) => (s.model ? html`<code>${s.model}</code>` : '–') },
          { label: 'Tier', render: (s) => (s.tier ? String(s.tier) : '–') },
          { label: 'Tokens', render: (s) => tokensText(s.tokens) },
          { label: 'Cost', render: (s) => (s.costUsd === undefined ? '–' : usd(s.costUsd)) },
          { label: 'Note', render: (s) => s.note || '' },
        ]}
      />
    </section>
    ${
      j.answers && j.answers.length
        ? html`<section class="card" aria-labelledby="answers">
            <h2 id="answers">Answers given</h2>
            <ul>
              ${j.answers.map((a) => {
                const q = (j.questions || []).find((x) => x.id === a.questionId);
                const c = q && a.choiceId ? (q.choices || []).find((x) => x.id === a.choiceId) : null;
                return html`<li>${q ? q.question : a.questionId}: <strong>${c ? c.label : a.choiceId || ''}</strong>${a.text ? html` “${a.text}”` : null}</li>`;
              })}
            </ul>
          </section>`
        : null
    }
    <section class="card" aria-labelledby="diff">
      <h2 id="diff">Diff</h2>
      ${diff ? html`<${DiffView} diff=${diff} />` : html`<p class="muted">No diff yet.</p>`}
    </section>
    <section class="card" aria-labelledby="tests">
      <h2 id="tests">Tests</h2>
      ${j.tests ? html`<${TestOutput} tests=${j.tests} label="Test output" />` : html`<p class="muted">No test run yet.</p>`}
    </section>
    ${
      attempts.length
        ? html`<section class="card" aria-labelledby="attempts">
            <h2 id="attempts">Attempts</h2>
            ${attempts.map(
              (a) =>
                html`<details>
                  <summary>
                    Attempt ${a.n}: ${a.verified ? 'patch verified' : 'patch rejected'}${a.tests ? (a.tests.passed ? ', tests passed' : ', tests failed') : ''}
                  </summary>
                  ${a.verifyError ? html`<p><strong>Verification:</strong> ${typeof a.verifyError === 'string' ? a.verifyError : a.verifyError.message || JSON.stringify(a.verifyError)}</p>` : null}
                  ${a.diff ? html`<${DiffView} diff=${a.diff} />` : null}
                  ${a.tests ? html`<${TestOutput} tests=${a.tests} label=${'Test output of attempt ' + a.n} />` : null}
                </details>`,
            )}
          </section>`
        : null
    }
  <//>`;
}
