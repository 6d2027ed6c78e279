import { html, useState } from '../lib/preact.js';
import { request } from '../lib/api.js';
import { Badge, ErrorBox, Table, useEventSource, useResource } from '../lib/components.js';
import { when } from './money.js';
import { useBatched } from './live.js';

const stateKind = { closed: 'good', open: 'bad', half_open: 'warn' };

/**
 * Circuit breakers, live: the list is read once, then each `circuit.transition` event of the
 * telemetry SSE feed (`from=now`) re-reads it, and the last transitions are listed as they arrive.
 */
export function Circuits() {
  const list = useResource(() => request('/api/v1/telemetry/circuit-breakers'), []);
  const [recent, setRecent] = useState([]);
  const [connected, setConnected] = useState(false);
  const reload = useBatched(list.reload);
  useEventSource('/api/v1/telemetry/events?kind=circuit.transition&from=now', ['circuit.transition', 'open'], (type, event) => {
    if (!connected) setConnected(true);
    if (type !== 'circuit.transition') return;
    const d = event.data || {};
    setRecent((r) => [{ id: event.id, at: event.at || event.time, circuit: d.circuit, from: d.from, to: d.to }, ...r].slice(0, 10));
    reload();
  });
  const data = list.data;
  return html`<section class="card" aria-labelledby="circuits">
    <h2 id="circuits">Circuit breakers</h2>
    <p class="muted live" role="status">${connected ? 'Live: following the telemetry feed.' : 'Connecting to the telemetry feed…'}</p>
    <${ErrorBox} error=${list.error} />
    ${
      data
        ? html`<p>
            <${Badge} kind="good">${data.summary.closed} closed<//> <${Badge} kind="warn">${data.summary.half_open} half-open<//>
            <${Badge} kind="bad">${data.summary.open} open<//>
          </p>`
        : null
    }
    <${Table}
      caption="Circuits of this tenant"
      rows=${data ? data.circuits : []}
      rowKey=${(c) => c.name}
      empty="No circuit yet: one appears with a model's or provider's first call."
      columns=${[
        { label: 'Circuit', render: (c) => html`<code>${c.name}</code>` },
        { label: 'State', render: (c) => html`<${Badge} kind=${stateKind[c.state] || 'neutral'}>${c.state.replace('_', '-')}<//>` },
        { label: 'Failures in a row', render: (c) => String(c.consecutiveFailures) },
        { label: 'Window', render: (c) => `${c.window.failures}/${c.window.calls} failed (${Math.round(c.window.errorRate * 100)}%)` },
        { label: 'Totals', render: (c) => `${c.totals.successes} ok, ${c.totals.failures} failed, ${c.totals.rejected} refused` },
        { label: 'Last error', render: (c) => (c.lastError ? c.lastError.message : '–') },
        { label: 'Next probe', render: (c) => (c.state === 'closed' ? '–' : when(c.nextProbeAt)) },
      ]}
    />
    <h3>Transitions since this page opened</h3>
    <ul class="live" aria-live="polite">
      ${recent.length === 0 ? html`<li class="muted">None yet.</li>` : null}
      ${recent.map((r) => html`<li key=${r.id}><code>${r.circuit}</code>: ${r.from} → <strong>${r.to}</strong></li>`)}
    </ul>
  </section>`;
}
