import { html } from '../lib/preact.js';
import { request } from '../lib/api.js';
import { ErrorBox, Loading, Page, formatBytes, formatTime, useInterval, useResource } from '../lib/components.js';
import { BarChart } from '../lib/charts.js';
import { ms } from './common.js';

const statusSeries = [
  { key: 'completed', label: 'completed', color: '#146c2e' },
  { key: 'failed', label: 'failed', color: '#b3261e' },
  { key: 'rejected', label: 'rejected', color: '#7a4f01' },
  { key: 'interrupted', label: 'interrupted', color: '#6b3fa0' },
  { key: 'running', label: 'running', color: '#0b57d0' },
];
const latencySeries = [
  { key: 'p50', label: 'p50', color: '#0b57d0' },
  { key: 'p95', label: 'p95', color: '#00677d' },
  { key: 'p99', label: 'p99', color: '#b3261e' },
];

/** `GET /hub/metrics` as charts, refreshed every 5 seconds. */
export default function Metrics() {
  const data = useResource(() => request('/hub/metrics'), []);
  useInterval(() => data.reload(), 5000);
  const m = data.data;
  return html`<${Page} title="Metrics">
    <${ErrorBox} error=${data.error} />
    ${
      !m
        ? data.error
          ? null
          : html`<${Loading} />`
        : html`<dl class="facts">
              <div>
                <dt>Routes served</dt>
                <dd>${m.routes}</dd>
              </div>
              <div>
                <dt>Stored executions</dt>
                <dd>${m.storedExecutions}</dd>
              </div>
              <div>
                <dt>Store</dt>
                <dd>${formatBytes(m.storeBytes)} (${m.driver})</dd>
              </div>
              <div>
                <dt>Counting since</dt>
                <dd>${formatTime(m.since)}</dd>
              </div>
            </dl>
            ${
              m.workflows.length
                ? html`<div class="chart-stack">
                    <div class="card">
                      <${BarChart}
                        title="Executions by status, per workflow"
                        series=${statusSeries}
                        rows=${m.workflows.map((w) => ({ label: w.id, values: w.executions }))}
                      />
                    </div>
                    <div class="card">
                      <${BarChart}
                        title="Latency percentiles, per workflow (ms)"
                        grouped=${true}
                        series=${latencySeries}
                        format=${(v) => ms(v)}
                        rows=${m.workflows.map((w) => ({ label: w.id, values: w.latencyMs }))}
                      />
                    </div>
                  </div>`
                : html`<p class="muted">No workflow yet.</p>`
            }
            <p class="muted">Counts and percentiles since the server started; <code>/metrics</code> has the Prometheus series.</p>`
    }
  <//>`;
}
