import { html, useState } from '../lib/preact.js';
import { ErrorBox, Loading, Notice, Page, useEventSource, useResource } from '../lib/components.js';
import { Link } from '../lib/router.js';
import { getJob, jobsNotServed, listJobs, stateLabel, ticketEvents, ticketFeed } from './jobs-api.js';
import { QuestionForm } from './question-form.js';
import { useBatched } from './live.js';

/**
 * Clarifying questions: every job paused in `awaiting_clarification` with its questions as a form;
 * answering resumes the job. New questions arrive live (`ticket.*` events re-read the list).
 */
export default function Questions() {
  const waiting = useResource(async () => {
    const jobs = await listJobs({ state: 'awaiting_clarification' });
    return Promise.all(jobs.map((j) => getJob(j.id)));
  }, []);
  const [done, setDone] = useState([]);
  useEventSource(ticketFeed(), ticketEvents, useBatched(waiting.reload));
  if (waiting.error && jobsNotServed(waiting.error))
    return html`<${Page} title="Clarifying questions"
      ><${Notice} kind="warn">This agent does not serve ticket jobs (<code>GET /api/v1/jobs</code> answered 404).<//><//
    >`;
  const jobs = (waiting.data || []).filter((j) => j.state === 'awaiting_clarification' && !done.some((d) => d.jobId === j.id));
  return html`<${Page} title="Clarifying questions">
    <p class="muted">The agent asks when a ticket is ambiguous; the job waits here until someone answers.</p>
    <${ErrorBox} error=${waiting.error} />
    <div aria-live="polite">
      ${done.map(
        (d) =>
          html`<${Notice} kind="success"
            >Answers sent for <${Link} href=${'/jobs/' + encodeURIComponent(d.jobId)}>${d.title}<//>: the job is ${stateLabel(d.state)}.<//
          >`,
      )}
    </div>
    ${!waiting.data && waiting.loading ? html`<${Loading} what="Loading the questions" />` : null}
    ${waiting.data && jobs.length === 0 ? html`<p class="muted">No job is waiting for an answer.</p>` : null}
    ${jobs.map(
      (j) =>
        html`<section class="card" key=${j.id} aria-labelledby=${'qj-' + j.id}>
          <h2 id=${'qj-' + j.id}><${Link} href=${'/jobs/' + encodeURIComponent(j.id)}>${j.ticket.title}<//></h2>
          <p class="muted"><code>${j.ticket.ticket_id}</code> · <code>${j.ticket.repo_name}</code></p>
          ${j.ticket.description ? html`<p class="pre-line">${j.ticket.description}</p>` : null}
          <${QuestionForm}
            jobId=${j.id}
            questions=${j.questions || []}
            onAnswered=${(a) => setDone((d) => [...d, { jobId: a.jobId, state: a.state, title: j.ticket.title }])}
          />
        </section>`,
    )}
  <//>`;
}
