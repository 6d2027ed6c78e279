import { html, useState } from '../lib/preact.js';
import { request, urlFor } from '../lib/api.js';
import { Badge, Button, Checkbox, ErrorBox, Json, Notice, Page, TextArea } from '../lib/components.js';

const example = JSON.stringify(
  {
    version: new Date().toISOString().slice(0, 10),
    indexes: [{ name: 'books', mappings: { title: { type: 'text', analyzer: 'english' } }, settings: { defaultOperator: 'AND' } }],
  },
  null,
  2,
);

/** The sign and wording of a step, as a diff reads: + create, ~ change, - remove. */
const kinds = {
  create_index: ['+', 'create', 'Create index'],
  add_field: ['+', 'create', 'Add field'],
  update_setting: ['~', 'change', 'Change setting'],
  change_field: ['~', 'change', 'Change field'],
  remove_field: ['-', 'remove', 'Remove field'],
  delete_index: ['-', 'remove', 'Delete index'],
};

function describe(step) {
  const d = step.details || {};
  if ('from' in d || 'to' in d) return JSON.stringify(d.from) + ' → ' + JSON.stringify(d.to);
  if (d.mapping) return JSON.stringify(d.mapping);
  if (step.action === 'delete_index') return d.docCount + ' documents';
  if (step.action === 'create_index') return Object.keys(d.mappings || {}).length + ' fields';
  return '';
}

function Step({ step }) {
  const [sign, kind, label] = kinds[step.action] || ['?', 'change', step.action];
  const d = step.details || {};
  const destructive = d.destructive === true || step.action === 'delete_index';
  return html`<li class=${'plan-step plan-' + kind + (destructive ? ' plan-destructive' : '')} data-action=${step.action}>
    <span class="plan-sign" aria-hidden="true">${sign}</span>
    <span class="plan-label">${label}</span>
    <code>${step.target}</code>
    <span class="muted">${describe(step)}</span>
    ${destructive ? html` <${Badge} kind="bad">destructive<//>` : null} ${d.requiresReindex ? html` <${Badge} kind="warn">re-index<//>` : null}
    <details>
      <summary>Details</summary>
      <${Json} value=${d} label=${'Details of ' + step.target} />
    </details>
  </li>`;
}

const steps = (n) => n + (n === 1 ? ' step' : ' steps');

function StaleNotice({ error, onPlanAgain }) {
  return html`<div class="alert alert-error" role="alert">
    <strong>plan_stale</strong> The indexes changed since this plan was made, so nothing was applied. Plan again to see what would change now.
    ${error.details && error.details.current ? html`<p class="muted">Hash now: <code>${error.details.current}</code></p>` : null}
    <${Button} onClick=${onPlanAgain}>Plan again<//>
  </div>`;
}

export default function ConfigPlan() {
  const [spec, setSpec] = useState(example);
  const [specError, setSpecError] = useState(null);
  const [plan, setPlan] = useState(null);
  const [allow, setAllow] = useState(false);
  const [error, setError] = useState(null);
  const [applied, setApplied] = useState(null);
  const [busy, setBusy] = useState(false);
  const destructive = plan ? plan.plan.filter((s) => (s.details && s.details.destructive === true) || s.action === 'delete_index') : [];
  const makePlan = async (e) => {
    if (e) e.preventDefault();
    setError(null);
    setApplied(null);
    setPlan(null);
    let body;
    try {
      body = JSON.parse(spec);
      setSpecError(null);
    } catch (err) {
      setSpecError('Not JSON: ' + err.message);
      return;
    }
    setBusy(true);
    try {
      setPlan(await request(urlFor('search', '/v1/config/plan'), { method: 'POST', body }));
      setAllow(false);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const apply = async () => {
    setError(null);
    setBusy(true);
    try {
      const result = await request(urlFor('search', '/v1/config/apply'), {
        method: 'POST',
        body: { plan: plan.plan, hash: plan.hash, allowDestructive: allow },
      });
      setApplied(result);
      setPlan(null);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const upload = async (file) => {
    if (file) setSpec(await file.text());
  };
  return html`<${Page} title="Config plan">
    <form class="panel" onSubmit=${makePlan} aria-labelledby="spec-title">
      <h2 id="spec-title">Spec</h2>
      <${TextArea}
        label="Configuration spec (JSON)"
        value=${spec}
        onInput=${setSpec}
        rows=${14}
        error=${specError}
        hint="{version, indexes: [{name, mappings, settings}]}: the indexes the tenant should have. Planning changes nothing."
      />
      <div class="field">
        <label for="spec-file">Or upload a spec file</label>
        <input id="spec-file" type="file" accept="application/json,.json" onChange=${(e) => upload(e.currentTarget.files[0])} />
      </div>
      <${Button} kind="primary" type="submit" disabled=${busy}>Plan<//>
    </form>
    ${error && error.code === 'plan_stale' ? html`<${StaleNotice} error=${error} onPlanAgain=${() => makePlan()} />` : html`<${ErrorBox} error=${error} />`}
    ${applied ? html`<${Notice} kind="success">Applied ${steps(applied.applied.length)}; ${applied.documentsLost} documents lost.<//>` : null}
    ${
      plan
        ? html`<section class="panel" aria-labelledby="plan-title">
            <h2 id="plan-title">Plan</h2>
            <p class="muted">Hash <code data-testid="plan-hash">${plan.hash}</code></p>
            ${
              plan.plan.length === 0
                ? html`<p role="status">No changes: the indexes already match the spec.</p>`
                : html`<p role="status">${steps(plan.plan.length)}${destructive.length ? ', ' + destructive.length + ' destructive' : ''}.</p>
                    <ol class="plan">
                      ${plan.plan.map((s) => html`<${Step} key=${s.action + s.target} step=${s} />`)}
                    </ol>
                    ${
                      destructive.length
                        ? html`<${Checkbox}
                            label=${'Allow destructive steps (' + destructive.map((s) => s.target).join(', ') + ')'}
                            checked=${allow}
                            onChange=${setAllow}
                          />`
                        : null
                    }
                    <${Button} kind=${destructive.length ? 'danger' : 'primary'} disabled=${busy || (destructive.length > 0 && !allow)} onClick=${apply}>
                      Apply this plan
                    <//>`
            }
          </section>`
        : null
    }
  <//>`;
}
