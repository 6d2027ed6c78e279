import { html, useState } from '../lib/preact.js';
import { request } from '../lib/api.js';
import { Button, ErrorBox, Input, Json, Loading, Notice, Page, Table, formatTime, useResource } from '../lib/components.js';
import { Link } from '../lib/router.js';
import { StatusBadge, can, ms } from './common.js';
import { Waterfall, stepInputs, stepPlaces } from './waterfall.js';

function SaveAsTest({ trace }) {
  const [name, setName] = useState(`${trace.workflow} as of ${trace.id}`);
  const [done, setDone] = useState(null);
  const [error, setError] = useState(null);
  const submit = async (e) => {
    e.preventDefault();
    setError(null);
    try {
      setDone((await request('/hub/tests', { method: 'POST', body: { name, fromTrace: trace.id } })).test);
    } catch (err) {
      setError(err);
    }
  };
  if (done) return html`<${Notice} kind="success">Saved as the test <strong>${done.name}</strong>. <${Link} href="/tests">Run it on the Tests screen<//>.<//>`;
  return html`<form class="panel" onSubmit=${submit} aria-labelledby="save-test">
    <h2 id="save-test">Save as a regression test</h2>
    <p class="muted">The input and attributes become the test's input, mock steps' outputs its fixtures and the output its expectation.</p>
    <div class="row"><${Input} label="Test name" value=${name} onInput=${setName} required name="testName" /></div>
    <${ErrorBox} error=${error} />
    <${Button} kind="primary" type="submit" disabled=${!name}>Save test<//>
  </form>`;
}

/** One execution: summary, waterfall, each step's input, output and error. */
export default function Trace({ params, session }) {
  const data = useResource(async () => {
    const { trace } = await request('/hub/traces/' + encodeURIComponent(params.id));
    // The spec places steps in fanOut branches and derives their inputs; null once deleted.
    const workflow = await request('/hub/workflows').then(
      ({ workflows }) => workflows.find((x) => x.id === trace.workflow) || null,
      () => null,
    );
    // Inputs are derived only from the version that ran; lanes from any version (ids rarely move).
    return { trace, spec: workflow && workflow.spec, sameVersion: Boolean(workflow && workflow.version === trace.workflowVersion) };
  }, [params.id]);
  const [selected, setSelected] = useState(null);
  if (data.error) return html`<${Page} title=${'Execution ' + params.id}><${ErrorBox} error=${data.error} /><//>`;
  if (!data.data) return html`<${Page} title=${'Execution ' + params.id}><${Loading} /><//>`;
  const { trace, spec, sameVersion } = data.data;
  const places = stepPlaces(spec);
  const inputs = sameVersion ? stepInputs(spec, trace) : new Map();
  const step = trace.steps.find((s) => s.id === selected);
  return html`<${Page} title=${'Execution ' + trace.id}>
    <dl class="facts">
      <div>
        <dt>Workflow</dt>
        <dd><${Link} href=${'/workflows/' + encodeURIComponent(trace.workflow)}>${trace.workflow}<//> version ${trace.workflowVersion}</dd>
      </div>
      <div>
        <dt>Status</dt>
        <dd><${StatusBadge} status=${trace.status} /></dd>
      </div>
      <div>
        <dt>Started</dt>
        <dd>${formatTime(trace.startedAt)}</dd>
      </div>
      <div>
        <dt>Duration</dt>
        <dd>${ms(trace.durationMs)}</dd>
      </div>
      <div>
        <dt>Fields</dt>
        <dd>
          ${
            Object.entries(trace.fields || {})
              .map(([k, v]) => `${k}=${v}`)
              .join(', ') || '–'
          }
        </dd>
      </div>
    </dl>
    ${trace.error ? html`<div class="alert alert-error" role="alert"><strong>${trace.error.code}</strong> ${trace.error.stepId ? html`at step <code>${trace.error.stepId}</code>: ` : null}${trace.error.message}</div>` : null}
    ${trace.truncated && trace.truncated.length ? html`<${Notice} kind="warn">Stored values cut to the size cap: ${trace.truncated.join(', ')}<//>` : null}
    <${Waterfall} trace=${trace} spec=${spec} selected=${selected} onSelect=${setSelected} />
    <${Table}
      caption="Steps in the order they started"
      rows=${trace.steps}
      rowKey=${(s) => s.id}
      empty="No step ran."
      columns=${[
        {
          label: 'Step',
          render: (s) =>
            html`<button
              type="button"
              class="link"
              aria-pressed=${selected === s.id ? 'true' : 'false'}
              onClick=${() => setSelected(selected === s.id ? null : s.id)}
            >
              ${s.id}
            </button>`,
        },
        { key: 'kind', label: 'Kind' },
        { label: 'Branch', render: (s) => (places.get(s.id) && places.get(s.id).lane) || (s.parent ? 'in ' + s.parent : '–') },
        { label: 'Status', render: (s) => html`<${StatusBadge} status=${s.status} />${s.pinned ? ' (pinned)' : ''}` },
        { label: 'Queue wait', render: (s) => ms(s.queueWaitMs) },
        { label: 'Duration', render: (s) => ms(s.durationMs) },
        { label: 'Attempts', render: (s) => String(s.attempts) },
        { label: 'Decision', render: (s) => s.decision || '' },
      ]}
    />
    ${
      step
        ? html`<section class="panel" aria-labelledby="step-title">
            <h2 id="step-title">Step ${step.id}</h2>
            ${step.error ? html`<div class="alert alert-error" role="alert"><strong>${step.error.code}</strong> ${step.error.message}</div>` : null}
            <div class="columns">
              <div>
                <h3>Input</h3>
                ${inputs.has(step.id) ? html`<${Json} value=${inputs.get(step.id)} label=${'Input of ' + step.id} />` : html`<p class="muted">Not known: the workflow has changed since this execution (step inputs are derived from the version that ran).</p>`}
              </div>
              <div>
                <h3>Output</h3>
                ${step.output === undefined ? html`<p class="muted">None.</p>` : html`<${Json} value=${step.output} label=${'Output of ' + step.id} />`}
              </div>
            </div>
          </section>`
        : html`<p class="muted">Choose a step to see its input and output.</p>`
    }
    <div class="columns">
      <section>
        <h2>Execution input</h2>
        <${Json} value=${trace.input ?? null} label="Execution input" />
        <h2>Attributes</h2>
        <${Json} value=${trace.attrs} label="Attributes" />
      </section>
      <section>
        <h2>Execution output</h2>
        <${Json} value=${trace.output ?? null} label="Execution output" />
      </section>
    </div>
    ${trace.status === 'completed' && can(session, 'workflow:test') ? html`<${SaveAsTest} trace=${trace} />` : null}
  <//>`;
}
