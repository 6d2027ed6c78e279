import { html, useState } from '../lib/preact.js';
import { request } from '../lib/api.js';
import { Button, Checkbox, ErrorBox, Input, Loading, Page, Select, Table, formatTime, useInterval, useResource } from '../lib/components.js';
import { Link, navigate, useLocation } from '../lib/router.js';
import { StatusBadge, ms } from './common.js';

const statuses = ['', 'running', 'completed', 'failed', 'interrupted', 'rejected'];

/** `datetime-local` value (local time) to ISO 8601 with offset, or undefined. */
function iso(local) {
  if (!local) return undefined;
  const d = new Date(local);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

/**
 * Executions, newest first, filtered by workflow, status, start time and the workflow's
 * searchFields values; the filters live in the address, so a filtered list can be shared.
 */
export default function Traces() {
  const loc = useLocation();
  const q = loc.query;
  const apis = useResource(() => request('/hub/apis'), []);
  const [form, setForm] = useState(() => ({
    workflow: q.get('workflow') || '',
    status: q.get('status') || '',
    from: q.get('from') || '',
    to: q.get('to') || '',
    fields: Object.fromEntries([...q.entries()].filter(([k]) => k.startsWith('field.')).map(([k, v]) => [k.slice(6), v])),
  }));
  const [pages, setPages] = useState([]);
  const [follow, setFollow] = useState(false);
  const search = loc.query.toString();
  const data = useResource(async () => {
    setPages([]);
    const params = new URLSearchParams(search);
    for (const k of ['from', 'to']) if (params.get(k)) params.set(k, iso(params.get(k)) || '');
    params.set('limit', '50');
    return request('/hub/traces?' + params.toString());
  }, [search]);
  // Following: the newest page is asked again every 3 seconds (older pages are dropped).
  useInterval(() => follow && data.reload(), 3000);
  const workflows = apis.data ? apis.data.apis : [];
  const chosen = workflows.find((w) => w.id === form.workflow);
  const fieldNames = chosen ? chosen.searchFields : [...new Set(workflows.flatMap((w) => w.searchFields))];
  const apply = (e) => {
    e.preventDefault();
    const p = new URLSearchParams();
    for (const k of ['workflow', 'status', 'from', 'to']) if (form[k]) p.set(k, form[k]);
    for (const [k, v] of Object.entries(form.fields)) if (v && fieldNames.includes(k)) p.set('field.' + k, v);
    navigate('/traces' + (p.toString() ? '?' + p.toString() : ''));
  };
  const more = async () => {
    const last = pages.length ? pages[pages.length - 1] : data.data;
    const params = new URLSearchParams(search);
    for (const k of ['from', 'to']) if (params.get(k)) params.set(k, iso(params.get(k)) || '');
    params.set('limit', '50');
    params.set('cursor', last.nextCursor);
    const page = await request('/hub/traces?' + params.toString());
    setPages([...pages, page]);
  };
  const rows = data.data ? [data.data, ...pages].flatMap((p) => p.traces) : null;
  const lastPage = pages.length ? pages[pages.length - 1] : data.data;
  const set = (k) => (v) => setForm({ ...form, [k]: v });
  return html`<${Page} title="Traces">
    <form class="panel" onSubmit=${apply} aria-label="Filter traces">
      <div class="row">
        <${Select}
          label="Workflow"
          value=${form.workflow}
          onChange=${set('workflow')}
          options=${[{ value: '', label: 'any' }, ...workflows.map((w) => ({ value: w.id, label: w.name }))]}
          name="workflow"
        />
        <${Select}
          label="Status"
          value=${form.status}
          onChange=${set('status')}
          options=${statuses.map((s) => ({ value: s, label: s || 'any' }))}
          name="status"
        />
        <${Input} label="Started from" type="datetime-local" value=${form.from} onInput=${set('from')} name="from" />
        <${Input} label="Started until" type="datetime-local" value=${form.to} onInput=${set('to')} name="to" />
      </div>
      ${
        fieldNames.length
          ? html`<div class="row">
              ${fieldNames.map(
                (f) =>
                  html`<${Input}
                    label=${'Field ' + f}
                    value=${form.fields[f] || ''}
                    onInput=${(v) => setForm({ ...form, fields: { ...form.fields, [f]: v } })}
                    name=${'field.' + f}
                  />`,
              )}
            </div>`
          : null
      }
      <div class="actions">
        <${Button} kind="primary" type="submit">Filter<//>
        <${Checkbox} label="Follow new executions (every 3 s)" checked=${follow} onChange=${setFollow} />
        <${Button}
          onClick=${() => {
            setForm({ workflow: '', status: '', from: '', to: '', fields: {} });
            navigate('/traces');
          }}
          >Clear<//
        >
      </div>
    </form>
    <${ErrorBox} error=${data.error || apis.error} />
    ${
      !rows
        ? data.error
          ? null
          : html`<${Loading} />`
        : html`<${Table}
              caption="Executions, newest first"
              rows=${rows}
              rowKey=${(t) => t.id}
              empty="No execution matches."
              columns=${[
                { label: 'Execution', render: (t) => html`<${Link} href=${'/traces/' + encodeURIComponent(t.id)}><code>${t.id}</code><//>` },
                { key: 'workflow', label: 'Workflow' },
                { label: 'Status', render: (t) => html`<${StatusBadge} status=${t.status} />` },
                { label: 'Started', render: (t) => formatTime(t.startedAt) },
                { label: 'Duration', render: (t) => ms(t.durationMs) },
                { label: 'Steps', render: (t) => String(t.steps.length) },
                {
                  label: 'Fields',
                  render: (t) =>
                    Object.entries(t.fields || {})
                      .map(([k, v]) => `${k}=${v}`)
                      .join(', ') || '–',
                },
                { label: 'Error', render: (t) => (t.error ? `${t.error.code}: ${t.error.message}` : '') },
              ]}
            />
            ${lastPage && lastPage.nextCursor ? html`<${Button} onClick=${more}>Older executions<//>` : null}`
    }
  <//>`;
}
