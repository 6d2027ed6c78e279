import { html, useState } from '../lib/preact.js';
import { request } from '../lib/api.js';
import { Button, Dialog, ErrorBox, Loading, Notice, Page, Table, formatTime, useResource } from '../lib/components.js';
import { Link } from '../lib/router.js';
import { StatusBadge, can, ms } from './common.js';
import { NewTest } from './new-test.js';

const show = (v) => (v === undefined ? '–' : JSON.stringify(v));

/** A result's structural diff: each path that differs, what was expected and what came. */
function Diff({ result }) {
  if (result.error)
    return html`<div class="alert alert-error" role="alert">
      <strong>${result.error.code}</strong> ${result.error.stepId ? html`at step <code>${result.error.stepId}</code>: ` : null}${result.error.message}
    </div>`;
  if (!result.diff.length) return null;
  return html`<${Table}
    caption=${'Differences of ' + result.name}
    rows=${result.diff}
    rowKey=${(d) => d.path}
    columns=${[
      { label: 'Path', render: (d) => html`<code>${d.path}</code>` },
      { label: 'Change', render: (d) => html`<span class=${'diff-' + d.kind}>${d.kind}</span>` },
      { label: 'Expected', render: (d) => html`<code class="diff-expected">${show(d.expected)}</code>` },
      { label: 'Actual', render: (d) => html`<code class="diff-actual">${show(d.actual)}</code>` },
    ]}
  />`;
}

/** Regression tests: list, run one or all, pass or fail with the structural diff. */
export default function Tests({ session }) {
  const data = useResource(() => request('/hub/tests'), []);
  const [run, setRun] = useState(null);
  // The latest result of each test, across runs (running one test keeps the others' results).
  const [latest, setLatest] = useState({});
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(null);
  const start = async (ids) => {
    setBusy(true);
    setError(null);
    try {
      const answer = (await request('/hub/tests/run', { method: 'POST', body: ids ? { tests: ids } : {} })).run;
      setRun(answer);
      if (answer.results) setLatest((l) => ({ ...l, ...Object.fromEntries(answer.results.map((r) => [r.id, r])) }));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const [removing, setRemoving] = useState(null);
  const remove = async () => {
    const t = removing;
    setRemoving(null);
    try {
      await request('/hub/tests/' + encodeURIComponent(t.id), { method: 'DELETE' });
      data.reload();
    } catch (err) {
      setError(err);
    }
  };
  const tests = data.data ? data.data.tests : null;
  const result = (id) => latest[id];
  return html`<${Page}
    title="Tests"
    actions=${tests && tests.length ? html`<${Button} kind="primary" disabled=${busy} onClick=${() => start()}>Run all<//>` : null}
  >
    <p class="muted">Tests run the current spec in isolation with pinned fixtures (no traces written). Save one from a completed execution on its trace.</p>
    <${ErrorBox} error=${data.error || error} />
    ${busy ? html`<${Loading} what="Running" />` : null}
    ${
      run && run.results
        ? html`<${Notice} kind=${run.failed ? 'error' : 'success'}>Run <code>${run.id}</code>: ${run.passed} of ${run.total} passed, ${run.failed} failed.<//>`
        : run
          ? html`<${Notice} kind="error">Run <code>${run.id}</code> ended ${run.state}${run.error ? ': ' + run.error.message : ''}.<//>`
          : null
    }
    ${
      !tests
        ? data.error
          ? null
          : html`<${Loading} />`
        : html`<${Table}
            caption="Regression tests"
            rows=${tests}
            rowKey=${(t) => t.id}
            empty="No test yet: open a completed execution in Traces and save it as a test."
            columns=${[
              { key: 'name', label: 'Name' },
              { label: 'Workflow', render: (t) => html`<${Link} href=${'/workflows/' + encodeURIComponent(t.workflow)}>${t.workflow}<//>` },
              { label: 'From', render: (t) => (t.fromTrace ? html`<${Link} href=${'/traces/' + encodeURIComponent(t.fromTrace)}>trace<//>` : 'written') },
              { label: 'Ignored paths', render: (t) => t.ignore.join(', ') || '–' },
              { label: 'Created', render: (t) => formatTime(t.createdAt) },
              {
                label: 'Last result',
                render: (t) => {
                  const r = result(t.id);
                  return r
                    ? html`<${StatusBadge} status=${r.status} /> <span class="muted">${ms(r.durationMs)}</span>`
                    : html`<span class="muted">not run</span>`;
                },
              },
              {
                label: 'Actions',
                render: (t) =>
                  html`<${Button} disabled=${busy} onClick=${() => start([t.id])} aria-label=${'Run test ' + t.name}>Run<//>
                    <${Button} kind="ghost" onClick=${() => setRemoving(t)} aria-label=${'Delete test ' + t.name}>Delete<//>`,
              },
            ]}
          />`
    }
    ${
      tests
        ? tests
            .map((t) => latest[t.id])
            .filter((r) => r)
            .filter((r) => r.status !== 'passed')
            .map(
              (r) =>
                html`<section class="panel test-failure" aria-label=${'Failure of ' + r.name}>
                  <h2>${r.name}: ${r.status}</h2>
                  <${Diff} result=${r} />
                </section>`,
            )
        : null
    }
    ${can(session, 'workflow:test') ? html`<${NewTest} onCreated=${data.reload} />` : null}
    <${Dialog} open=${Boolean(removing)} title=${removing ? `Delete the test ${removing.name}?` : ''} onClose=${() => setRemoving(null)}>
      <p>The test is removed from this tenant; traces and workflows stay.</p>
      <div class="actions">
        <${Button} onClick=${() => setRemoving(null)}>Cancel<//>
        <${Button} kind="danger" onClick=${remove}>Delete test<//>
      </div>
    <//>
  <//>`;
}
