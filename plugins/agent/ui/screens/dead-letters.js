import { html, useState } from '../lib/preact.js';
import { request } from '../lib/api.js';
import { Badge, Button, ErrorBox, Json, Notice, useEventSource, useResource } from '../lib/components.js';
import { when } from './money.js';
import { useBatched } from './live.js';

const stateKind = { completed: 'good', failed: 'bad', running: 'info', queued: 'info' };

function Record({ r, onReplayed }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(null);
  const [started, setStarted] = useState(null);
  const replay = async () => {
    setBusy(true);
    setError(null);
    try {
      const answer = await request(`/api/v1/telemetry/dlq/${encodeURIComponent(r.id)}/replay`, { method: 'POST' });
      setStarted(answer.job);
      onReplayed();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const running = r.replayState === 'queued' || r.replayState === 'running';
  return html`<li class="card" aria-labelledby=${'dlq-' + r.id}>
    <h3 id=${'dlq-' + r.id}>
      <code>${r.jobName}</code> <span class="muted">${r.id}</span>
      ${r.replayState ? html` <${Badge} kind=${stateKind[r.replayState] || 'neutral'}>replay ${r.replayState}<//>` : null}
    </h3>
    <p><strong>${r.error.code || 'error'}</strong> ${r.error.message}</p>
    <p class="muted">
      Job <code>${r.jobId}</code>${' '} ${`· ${r.attempts.length} attempt(s) · first failure ${when(r.firstFailureAt)} · last ${when(r.lastFailureAt)}`}
      ${r.replayOf ? html` · replay of <code>${r.replayOf}</code>` : null}
    </p>
    <details>
      <summary>Stack trace and attempts</summary>
      <pre class="stack" tabindex="0" aria-label=${'Stack trace of ' + r.id}>${r.stack}</pre>
      <ol>
        ${r.attempts.map(
          (a) =>
            html`<li>
              Attempt ${a.attempt}, ${when(a.startedAt)}: ${a.error.message}
              ${a.stack ? html`<pre class="stack" tabindex="0" aria-label=${`Stack trace of attempt ${a.attempt}`}>${a.stack}</pre>` : null}
            </li>`,
        )}
      </ol>
      <${Json} value=${r.input} label=${'Input of ' + r.id + ' (secrets redacted)'} />
      ${r.replays.length ? html`<p>Replays: ${r.replays.map((x, i) => html`${i ? ', ' : ''}<code>${x.jobId}</code> (${when(x.at)})`)}</p>` : null}
    </details>
    <${ErrorBox} error=${error} />
    ${started ? html`<${Notice} kind="success">Replay queued as job <code>${started.id}</code>.<//>` : null}
    <${Button} kind="primary" onClick=${replay} disabled=${busy || running} aria-label=${'Replay ' + r.id}>${running ? 'Replay running…' : 'Replay'}<//>
  </li>`;
}

/**
 * The dead-letter queue with each record's error, stack traces, attempts and redacted input, and a
 * replay button; a `dlq.*` or `job.*` event on the telemetry feed re-reads it (replay states move).
 */
export function DeadLetters() {
  const dlq = useResource(() => request('/api/v1/telemetry/dlq?limit=50'), []);
  const reload = useBatched(dlq.reload);
  useEventSource(
    '/api/v1/telemetry/events?kind=dlq.*,job.*&from=now',
    ['dlq.quarantined', 'dlq.replayed', 'job.completed', 'job.failed', 'job.started'],
    reload,
  );
  const records = dlq.data ? dlq.data.records : [];
  return html`<section class="card" aria-labelledby="dlq">
    <h2 id="dlq">Dead-letter queue</h2>
    <${ErrorBox} error=${dlq.error} />
    ${dlq.data && records.length === 0 ? html`<p class="muted">Nothing quarantined.</p>` : null}
    <ul class="plain">
      ${records.map((r) => html`<${Record} key=${r.id} r=${r} onReplayed=${dlq.reload} />`)}
    </ul>
  </section>`;
}
