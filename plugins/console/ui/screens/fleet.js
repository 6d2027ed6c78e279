import { html, useEffect, useRef, useState } from '../lib/preact.js';
import { listenerUrl, request } from '../lib/api.js';
import { Badge, ErrorBox, Loading, Page, Spark, Table, formatBytes, formatDuration, useInterval, useResource } from '../lib/components.js';
import { requestCounts } from '../lib/prometheus.js';

const samples = 40;
const everyMs = 3000;

/** One listener: health, and request/error rates and memory charted from its /metrics. */
function ListenerCard({ listener }) {
  const [state, setState] = useState({ health: null, error: null, rate: [], errors: [], rss: [] });
  const last = useRef(null);
  const sample = async () => {
    try {
      const [health, metrics] = await Promise.all([
        request(listenerUrl(listener.name, '/health')),
        request(listenerUrl(listener.name, '/metrics'), { raw: true }).then((r) => r.text()),
      ]);
      const counts = requestCounts(metrics, listener.name);
      const now = performance.now();
      const prev = last.current;
      last.current = { ...counts, at: now };
      setState((s) => {
        const push = (arr, v) => [...arr, v].slice(-samples);
        if (!prev) return { ...s, health, error: null, rss: push(s.rss, health.memory.rssMb) };
        const dt = (now - prev.at) / 1000;
        return {
          health,
          error: null,
          rate: push(s.rate, Math.max(0, (counts.total - prev.total) / dt)),
          errors: push(s.errors, Math.max(0, (counts.errors - prev.errors) / dt)),
          rss: push(s.rss, health.memory.rssMb),
        };
      });
    } catch (error) {
      setState((s) => ({ ...s, error }));
    }
  };
  useInterval(sample, everyMs);
  useEffect(() => {
    sample();
  }, []);
  const h = state.health;
  return html`<article class="card" aria-labelledby=${'l-' + listener.name}>
    <h2 id=${'l-' + listener.name}>
      ${listener.name} <span class="muted">${listener.url}</span>
      ${state.error ? html`<${Badge} kind="bad">down<//>` : h ? html`<${Badge} kind="good">${h.status}<//>` : null}
      ${listener.auth ? html`<${Badge}>auth on<//>` : html`<${Badge} kind="warn">auth off<//>`}
    </h2>
    <p class="muted">Plugins: ${listener.plugins.length ? listener.plugins.join(', ') : 'none'}</p>
    ${state.error ? html`<${ErrorBox} error=${state.error} />` : null}
    ${h ? html`<p>Uptime ${formatDuration(h.uptimeMs)} · heap ${h.memory.heapUsedMb} MB</p>` : null}
    <div class="sparks">
      <${Spark} label="Requests/s" values=${state.rate} />
      <${Spark} label="5xx/s" values=${state.errors} format=${(v) => v.toFixed(2)} />
      <${Spark} label="Memory (RSS)" values=${state.rss} unit=" MB" />
    </div>
  </article>`;
}

export default function Fleet({ session }) {
  const system = useResource(() => request('/v1/system'), []);
  useInterval(system.reload, 10_000);
  const s = system.data || session.system;
  return html`<${Page} title="Fleet">
    ${system.error ? html`<${ErrorBox} error=${system.error} />` : null}
    ${
      !s
        ? html`<${Loading} />`
        : html` <p>
              <strong>${s.name}</strong> · Tessera ${s.version} · Node ${s.node} · up ${formatDuration(s.uptimeMs)} · store ${formatBytes(s.store.sizeBytes)} ·
              kernels ${s.kernels.started ? `${s.kernels.threads} threads` : 'not started'}
            </p>
            <div class="cards">${s.listeners.map((l) => html`<${ListenerCard} key=${l.name} listener=${l} />`)}</div>
            <h2>Jobs and schedules</h2>
            <p>Queued ${s.jobs.queued} · running ${s.jobs.running} · schedules ${s.jobs.schedules}</p>
            <h2>Plugins</h2>
            <${Table}
              caption="Loaded plugins"
              rows=${s.plugins}
              rowKey=${(p) => p.name}
              columns=${[
                { key: 'name', label: 'Plugin' },
                { key: 'version', label: 'Version' },
                { key: 'source', label: 'Source' },
                { label: 'Depends on', render: (p) => p.dependsOn.join(', ') || '–' },
                { label: 'Jobs queued / running', render: (p) => `${p.jobs.queued} / ${p.jobs.running}` },
                { label: 'Schedules', render: (p) => String(p.jobs.schedules) },
              ]}
            />`
    }
  <//>`;
}
