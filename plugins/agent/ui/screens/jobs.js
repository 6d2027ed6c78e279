import { html } from '../lib/preact.js';
import { Badge, ErrorBox, Loading, Notice, Page, useEventSource, useResource } from '../lib/components.js';
import { Link } from '../lib/router.js';
import { jobsNotServed, listJobs, safeUrl, stateKind, stateLabel, states, ticketEvents, ticketFeed } from './jobs-api.js';
import { usd } from './money.js';
import { useBatched } from './live.js';

function JobCard({ job }) {
  return html`<li class="job-card">
    <${Link} href=${'/jobs/' + encodeURIComponent(job.id)}>${job.ticket.title}<//>
    <div class="job-meta"><code>${job.ticket.ticket_id}</code> · <code>${job.ticket.repo_name}</code></div>
    <div class="job-meta">${job.role ? html`${job.role} · ` : null}${job.tier ? html`tier ${job.tier} · ` : null}${usd(job.costUsd)}</div>
    ${
      job.pullRequest
        ? html`<div class="job-meta">
            <a href=${job.pullRequest.url} rel="noopener noreferrer" target="_blank">Pull request #${job.pullRequest.number}</a>
          </div>`
        : null
    }
  </li>`;
}

/**
 * Jobs board: the ticket jobs by state, one column each, re-read when a `ticket.*` event arrives on
 * the telemetry feed (batched: one read per burst of events).
 */
export default function Jobs() {
  const jobs = useResource(() => listJobs(), []);
  useEventSource(ticketFeed(), ticketEvents, useBatched(jobs.reload));
  if (jobs.error && jobsNotServed(jobs.error))
    return html`<${Page} title="Jobs"
      ><${Notice} kind="warn">This agent does not serve ticket jobs (<code>GET /api/v1/jobs</code> answered 404).<//><//
    >`;
  const all = jobs.data || [];
  return html`<${Page} title="Jobs">
    <p class="muted live" role="status">${jobs.data ? `${all.length} job(s); updated live from the telemetry feed.` : ''}</p>
    <${ErrorBox} error=${jobs.error} />
    ${!jobs.data && jobs.loading ? html`<${Loading} what="Loading the jobs" />` : null}
    <div class="board">
      ${states.map((s) => {
        const mine = all.filter((j) => j.state === s);
        return html`<section class="board-column" aria-labelledby=${'col-' + s}>
          <h2 id=${'col-' + s}><${Badge} kind=${stateKind(s)}>${stateLabel(s)}<//> <span class="muted">${mine.length}</span></h2>
          ${
            mine.length
              ? html`<ul>
                  ${mine.map((j) => html`<${JobCard} key=${j.id} job=${{ ...j, pullRequest: j.pullRequest && safeUrl(j.pullRequest.url) ? j.pullRequest : undefined }} />`)}
                </ul>`
              : html`<p class="muted">None.</p>`
          }
        </section>`;
      })}
    </div>
  <//>`;
}
