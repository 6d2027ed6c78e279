import { html, useState } from '../lib/preact.js';
import { request, urlFor } from '../lib/api.js';
import { Button, ErrorBox, Input, Loading, Page, Table, TextArea, formatTime, useResource } from '../lib/components.js';
import { Progress, stateBadge, useLiveRecord } from './live-job.js';

const intervalUnits = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** The next runs of an interval schedule (on the grid of its first run); a cron shows its next one. */
function nextRuns(schedule, n = 3) {
  if (!schedule.nextRunAt) return [];
  const m = schedule.interval && /^(\d+)(ms|s|m|h|d)$/.exec(schedule.interval);
  const first = new Date(schedule.nextRunAt).getTime();
  if (!m) return [first];
  const step = Number(m[1]) * intervalUnits[m[2]];
  return Array.from({ length: n }, (_, i) => first + i * step);
}

function CrawlJob({ jobId }) {
  const live = useLiveRecord(
    urlFor('crawler', `/v1/jobs/${jobId}`),
    urlFor('crawler', `/v1/jobs/${jobId}/events`),
    ['job.queued', 'job.started', 'job.progress', 'job.completed', 'job.failed', 'job.cancelled', 'job.interrupted'],
    (a) => a.job,
  );
  const job = live.data;
  if (!job) return live.error ? html`<${ErrorBox} error=${live.error} />` : html`<${Loading} />`;
  const c = job.counts || {};
  return html`<section class="panel" aria-labelledby=${'job-' + job.id} aria-live="polite">
    <h3 id=${'job-' + job.id}>Crawl ${job.id} ${stateBadge(job.state)}</h3>
    <${Progress} value=${job.progress && job.progress.value} label="Crawl progress" />
    <p class="counts">${['fetched', 'indexed', 'skipped', 'unchanged', 'failed', 'removed'].map((k) => `${k} ${c[k] ?? 0}`).join(' · ')}</p>
    ${
      job.errors && job.errors.length
        ? html`<${Table}
            caption="Pages that failed"
            rows=${job.errors}
            columns=${[
              { key: 'url', label: 'URL' },
              { label: 'Code', render: (e) => html`<code>${e.code}</code>` },
              { key: 'message', label: 'Message' },
            ]}
          />`
        : null
    }
  </section>`;
}

/** The query of `GET /api/console/next-runs` for the form's cadence. */
function cadenceQuery(f) {
  const q = new URLSearchParams({ count: '5' });
  if (f.timing === 'interval') q.set('interval', f.every.trim());
  else {
    q.set('cron', f.cron.trim());
    if (f.timezone.trim()) q.set('timezone', f.timezone.trim());
  }
  return q.toString();
}

/** A run's time in the cron's time zone (the browser's for an interval), with the zone named. */
function runTime(iso, zone) {
  const options = { year: 'numeric', month: 'short', day: 'numeric', weekday: 'short', hour: '2-digit', minute: '2-digit', timeZoneName: 'short' };
  return new Date(iso).toLocaleString(undefined, zone ? { ...options, timeZone: zone } : options);
}

/**
 * The next five runs of the cadence being typed, computed by the control plane with the
 * scheduler's own code (an answer to older text is dropped), or why the cadence is invalid.
 */
export function NextRuns({ query }) {
  const runs = useResource(() => request('/api/console/next-runs?' + query), [query]);
  return html`<div class="next-runs" aria-live="polite">
    ${
      runs.error
        ? html`<small class="error-text" role="alert" data-testid="cadence-error">${runs.error.message}</small>`
        : runs.data
          ? html`<p class="muted">Next runs${runs.data.timezone ? ' (' + runs.data.timezone + ')' : ''}:</p>
              <ol data-testid="next-runs">
                ${runs.data.runs.map((t) => html`<li><time datetime=${t}>${runTime(t, runs.data.timezone)}</time></li>`)}
              </ol>`
          : null
    }
  </div>`;
}

function CreateSchedule({ onCreated }) {
  const [f, setF] = useState({
    name: '',
    seeds: '',
    timing: 'interval',
    every: '6h',
    cron: '0 3 * * *',
    timezone: '',
    index: '',
    maxPages: '100',
    maxDepth: '5',
  });
  const [error, setError] = useState(null);
  const set = (k) => (v) => setF({ ...f, [k]: v });
  const submit = async (e) => {
    e.preventDefault();
    setError(null);
    const body = {
      name: f.name,
      ...(f.timing === 'interval' ? { interval: f.every } : { cron: f.cron, ...(f.timezone.trim() ? { timezone: f.timezone.trim() } : {}) }),
      config: { seeds: f.seeds.split(/\s+/).filter(Boolean), maxPages: Number(f.maxPages), maxDepth: Number(f.maxDepth) },
      ...(f.index ? { autoIndex: { enabled: true, index: f.index } } : {}),
    };
    try {
      const answer = await request(urlFor('crawler', '/v1/schedules'), { method: 'POST', body });
      onCreated(answer.id);
    } catch (err) {
      setError(err);
    }
  };
  return html`<form class="panel" onSubmit=${submit} aria-labelledby="new-schedule">
    <h2 id="new-schedule">New crawl schedule</h2>
    <${Input} label="Name" value=${f.name} onInput=${set('name')} required />
    <${TextArea} label="Seed URLs (one per line)" rows=${3} value=${f.seeds} onInput=${set('seeds')} required />
    <fieldset>
      <legend>When</legend>
      <div class="check">
        <input type="radio" id="t-int" name="timing" checked=${f.timing === 'interval'} onChange=${() => set('timing')('interval')} /><label for="t-int"
          >Every</label
        >
      </div>
      <div class="check">
        <input type="radio" id="t-cron" name="timing" checked=${f.timing === 'cron'} onChange=${() => set('timing')('cron')} /><label for="t-cron">Cron</label>
      </div>
      ${
        f.timing === 'interval'
          ? html`<${Input} label="Interval" value=${f.every} onInput=${set('every')} hint="30s, 15m, 6h, 1d" />`
          : html`<div class="row">
              <${Input} label="Cron expression" value=${f.cron} onInput=${set('cron')} hint="five fields, or @daily" />
              <${Input} label="Time zone" value=${f.timezone} onInput=${set('timezone')} hint="IANA name such as Europe/Paris; empty: UTC" />
            </div>`
      }
      <${NextRuns} query=${cadenceQuery(f)} />
    </fieldset>
    <div class="row">
      <${Input} label="Index to feed" value=${f.index} onInput=${set('index')} hint="Created on first use; empty: crawl without indexing." />
      <${Input} label="Max pages" type="number" value=${f.maxPages} onInput=${set('maxPages')} />
      <${Input} label="Max depth" type="number" value=${f.maxDepth} onInput=${set('maxDepth')} />
    </div>
    <${ErrorBox} error=${error} />
    <${Button} kind="primary" type="submit">Create schedule<//>
  </form>`;
}

export default function Crawls() {
  const schedules = useResource(() => request(urlFor('crawler', '/v1/schedules')), []);
  const [creating, setCreating] = useState(false);
  const [watching, setWatching] = useState([]);
  const [error, setError] = useState(null);
  const act = async (fn) => {
    setError(null);
    try {
      await fn();
      schedules.reload();
    } catch (err) {
      setError(err);
    }
  };
  const runNow = (s) =>
    act(async () => {
      const answer = await request(urlFor('crawler', `/v1/schedules/${s.id}/run`), { method: 'POST' });
      setWatching((w) => [answer.jobId, ...w.filter((j) => j !== answer.jobId)]);
    });
  const pause = (s) => act(() => request(urlFor('crawler', `/v1/schedules/${s.id}`), { method: 'PATCH', body: { paused: !s.paused } }));
  const remove = (s) => act(() => request(urlFor('crawler', `/v1/schedules/${s.id}`), { method: 'DELETE' }));
  return html`<${Page}
    title="Crawls"
    actions=${html`<${Button} kind="primary" aria-expanded=${creating} onClick=${() => setCreating(!creating)}>New schedule<//>`}
  >
    ${creating ? html`<${CreateSchedule} onCreated=${() => (setCreating(false), schedules.reload())} />` : null}
    <${ErrorBox} error=${schedules.error || error} />
    ${
      schedules.data
        ? html`<${Table}
            caption="Crawl schedules"
            rows=${schedules.data.schedules}
            rowKey=${(s) => s.id}
            empty="No schedule yet."
            columns=${[
              { key: 'name', label: 'Name' },
              { label: 'When', render: (s) => (s.interval ? 'every ' + s.interval : s.cron) },
              {
                label: 'Next runs',
                render: (s) =>
                  s.paused
                    ? 'paused'
                    : nextRuns(s)
                        .map((t) => new Date(t).toLocaleString())
                        .join(', ') || '–',
              },
              {
                label: 'Last run',
                render: (s) => (s.lastRun ? html`${stateBadge(s.lastRun.state)} ${formatTime(s.lastRun.finishedAt || s.lastRun.startedAt)}` : '–'),
              },
              { label: 'Index', render: (s) => (s.autoIndex && s.autoIndex.enabled ? s.autoIndex.index : '–') },
              {
                label: 'Actions',
                render: (s) =>
                  html`<div class="actions">
                    <${Button} onClick=${() => runNow(s)} aria-label=${'Run now ' + s.name}>Run now<//>
                    <${Button} onClick=${() => pause(s)} aria-label=${(s.paused ? 'Resume ' : 'Pause ') + s.name}>${s.paused ? 'Resume' : 'Pause'}<//>
                    <${Button} kind="danger" onClick=${() => remove(s)} aria-label=${'Delete ' + s.name}>Delete<//>
                  </div>`,
              },
            ]}
          />`
        : html`<${Loading} />`
    }
    ${watching.map((id) => html`<${CrawlJob} key=${id} jobId=${id} />`)}
  <//>`;
}
