import { html, useState } from '../lib/preact.js';
import { request, urlFor } from '../lib/api.js';
import { Button, Checkbox, ErrorBox, Input, Loading, Page, Select, Table, formatTime, useResource } from '../lib/components.js';
import { Progress, stateBadge, useLiveRecord } from './live-job.js';

const scanEvents = ['scan.queued', 'scan.running', 'scan.watching', 'scan.progress', 'scan.change', 'scan.completed', 'scan.failed', 'scan.stopped'];

function LiveScan({ id, onStop }) {
  const live = useLiveRecord(urlFor('scanner', `/v1/scans/${id}`), urlFor('scanner', `/v1/scans/${id}/events`), scanEvents, (a) => a.scan);
  const scan = live.data;
  if (!scan) return live.error ? html`<${ErrorBox} error=${live.error} />` : html`<${Loading} />`;
  const c = scan.counts;
  const p = scan.progress;
  return html`<section class="panel" aria-labelledby=${'scan-' + id} aria-live="polite">
    <h3 id=${'scan-' + id}>${scan.type} scan of ${scan.input.path || scan.input.table} ${stateBadge(scan.state)}</h3>
    ${p && p.total ? html`<${Progress} value=${p.done / p.total} label="Scan progress" />` : null}
    <p class="counts">
      ${['seen', 'created', 'modified', 'deleted', 'indexed', 'errors', 'skipped'].map((k) => `${k} ${c[k]}`).join(' · ')}${p ? ` · ${p.done}${p.total ? ' / ' + p.total : ''} ${p.unit}` : ''}
    </p>
    ${scan.error ? html`<${ErrorBox} error=${scan.error} />` : null}
    ${
      scan.badLines && scan.badLines.length
        ? html`<${Table}
            caption="Bad lines"
            rows=${scan.badLines}
            columns=${[
              { label: 'Line', render: (b) => String(b.line) },
              { key: 'message', label: 'Message' },
            ]}
          />`
        : null
    }
    ${['queued', 'running', 'watching'].includes(scan.state) ? html`<${Button} kind="danger" onClick=${() => onStop(id)}>Stop scan<//>` : null}
  </section>`;
}

function NewScan({ onStarted }) {
  const [f, setF] = useState({ type: 'folder', path: '', targetIndex: '', watch: false, include: '', exclude: '', format: 'jsonl', idField: '' });
  const [error, setError] = useState(null);
  const set = (k) => (v) => setF({ ...f, [k]: v });
  const globs = (s) =>
    s
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean);
  const submit = async (e) => {
    e.preventDefault();
    setError(null);
    const body =
      f.type === 'folder'
        ? {
            path: f.path,
            targetIndex: f.targetIndex,
            watch: f.watch,
            ...(f.include ? { include: globs(f.include) } : {}),
            ...(f.exclude ? { exclude: globs(f.exclude) } : {}),
          }
        : { path: f.path, targetIndex: f.targetIndex, format: f.format, ...(f.idField ? { idField: f.idField } : {}) };
    try {
      const answer = await request(urlFor('scanner', '/v1/scans/' + f.type), { method: 'POST', body });
      onStarted(answer.scanId);
    } catch (err) {
      setError(err);
    }
  };
  return html`<form class="panel" onSubmit=${submit} aria-labelledby="new-scan">
    <h2 id="new-scan">Start a scan</h2>
    <div class="row">
      <${Select}
        label="Kind"
        value=${f.type}
        onChange=${set('type')}
        options=${[
          { value: 'folder', label: 'Folder' },
          { value: 'file', label: 'File (JSONL or CSV)' },
        ]}
      />
      <${Input} label="Path on the server" value=${f.path} onInput=${set('path')} required hint="Under one of the scanner's roots." />
      <${Input} label="Target index" value=${f.targetIndex} onInput=${set('targetIndex')} required />
    </div>
    ${
      f.type === 'folder'
        ? html`<div class="row">
            <${Input} label="Include globs (comma separated)" value=${f.include} onInput=${set('include')} />
            <${Input} label="Exclude globs (comma separated)" value=${f.exclude} onInput=${set('exclude')} />
            <${Checkbox} label="Keep watching for changes" checked=${f.watch} onChange=${set('watch')} />
          </div>`
        : html`<div class="row">
            <${Select} label="Format" value=${f.format} onChange=${set('format')} options=${['jsonl', 'csv']} />
            <${Input} label="Id field" value=${f.idField} onInput=${set('idField')} />
          </div>`
    }
    <${ErrorBox} error=${error} />
    <${Button} kind="primary" type="submit">Start scan<//>
  </form>`;
}

export default function Scans() {
  const scans = useResource(() => request(urlFor('scanner', '/v1/scans?limit=50')), []);
  const [live, setLive] = useState([]);
  const [error, setError] = useState(null);
  const stop = async (id) => {
    try {
      await request(urlFor('scanner', `/v1/scans/${id}`), { method: 'DELETE' });
      scans.reload();
    } catch (err) {
      setError(err);
    }
  };
  return html`<${Page} title="Scans">
    <${NewScan} onStarted=${(id) => (setLive((l) => [id, ...l]), scans.reload())} />
    <${ErrorBox} error=${scans.error || error} />
    ${live.map((id) => html`<${LiveScan} key=${id} id=${id} onStop=${stop} />`)}
    <h2>History</h2>
    ${
      scans.data
        ? html`<${Table}
            caption="Scans, newest first"
            rows=${scans.data.scans}
            rowKey=${(s) => s.id}
            empty="No scan yet."
            columns=${[
              { key: 'type', label: 'Kind' },
              { label: 'Source', render: (s) => s.input.path || s.input.table || '–' },
              { key: 'targetIndex', label: 'Index' },
              { label: 'State', render: (s) => stateBadge(s.state) },
              { label: 'Indexed', render: (s) => String(s.counts.indexed) },
              { label: 'Errors', render: (s) => String(s.counts.errors) },
              { label: 'Started', render: (s) => formatTime(s.startedAt || s.createdAt) },
              {
                label: 'Follow',
                render: (s) =>
                  html`<${Button} onClick=${() => setLive((l) => (l.includes(s.id) ? l : [s.id, ...l]))} aria-label=${'Follow scan ' + s.id}>Follow<//>`,
              },
            ]}
          />`
        : html`<${Loading} />`
    }
  <//>`;
}
