import { html, useState } from '../lib/preact.js';
import { request } from '../lib/api.js';
import { Button, ErrorBox, Field, Input, Loading, Notice, Page, TextArea, useResource } from '../lib/components.js';
import { download, tarArchive } from '../lib/tar.js';

/** Specs from files: each a spec or an array of specs. */
async function readFiles(files) {
  const specs = [];
  for (const f of files) {
    let value;
    try {
      value = JSON.parse(await f.text());
    } catch (err) {
      throw { code: 'invalid_json', message: `${f.name} is not JSON: ${err.message}` };
    }
    specs.push(...(Array.isArray(value) ? value : [value]));
  }
  return specs;
}

function Plan({ plan }) {
  const breaking = new Map();
  for (const b of plan.breaking) breaking.set(b.workflow, [...(breaking.get(b.workflow) || []), b]);
  const mark = (w) =>
    breaking.has(w)
      ? html`<ul class="breaking">
          ${breaking.get(w).map((b) => html`<li><strong>breaking</strong> <code>${b.kind}</code> ${b.message}</li>`)}
        </ul>`
      : null;
  const none = !plan.added.length && !plan.changed.length && !plan.removed.length;
  return html`<section class="panel" aria-labelledby="plan-title">
    <h2 id="plan-title">Plan</h2>
    ${
      plan.breaking.length
        ? html`<div class="alert alert-error" role="alert">
            <strong>${plan.breaking.length} breaking change${plan.breaking.length === 1 ? '' : 's'}</strong>: callers of these routes will see them change or
            go.
          </div>`
        : html`<${Notice} kind="success">No breaking change.<//>`
    }
    ${none ? html`<p>Nothing to change: the target set is what is deployed.</p>` : null}
    <ul class="plan">
      ${plan.added.map(
        (a) =>
          html`<li class="plan-step plan-create">
            <span class="plan-sign" aria-hidden="true">+</span><span>add <strong>${a.workflow}</strong> at <code>${a.route}</code></span>
          </li>`,
      )}
      ${plan.changed.map(
        (c) =>
          html`<li class=${'plan-step plan-change' + (breaking.has(c.workflow) ? ' plan-destructive' : '')}>
            <span class="plan-sign" aria-hidden="true">~</span
            ><span>change <strong>${c.workflow}</strong> (version ${c.fromVersion} → ${c.toVersion}): ${c.fields.join(', ')}</span>
            ${mark(c.workflow)}
          </li>`,
      )}
      ${plan.removed.map(
        (r) =>
          html`<li class="plan-step plan-remove plan-destructive">
            <span class="plan-sign" aria-hidden="true">−</span><span>remove <strong>${r.workflow}</strong> at <code>${r.route}</code></span>
            ${mark(r.workflow)}
          </li>`,
      )}
    </ul>
    ${plan.unchanged.length ? html`<p class="muted">Unchanged: ${plan.unchanged.join(', ')}</p>` : null}
    <p class="muted">
      Routes added: ${plan.routes.added.join(', ') || '–'}; removed: ${plan.routes.removed.join(', ') || '–'}. Plan <code>${plan.hash.slice(0, 16)}</code>.
    </p>
  </section>`;
}

/**
 * Deploy: plan a target set (JSON files, or the deployed set edited here) against what is
 * deployed, breaking changes first; export the deployed set as a runnable bundle (a .tar).
 */
export default function Deploy() {
  const current = useResource(() => request('/hub/workflows'), []);
  const [source, setSource] = useState('current');
  const [text, setText] = useState(null);
  const [files, setFiles] = useState([]);
  const [plan, setPlan] = useState(null);
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const [name, setName] = useState('tessera-workflows');
  const [exported, setExported] = useState(null);
  const specs = current.data ? current.data.workflows.map((w) => w.spec) : null;
  const editable = text ?? (specs ? JSON.stringify(specs, null, 2) : '');
  const makePlan = async (e) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setPlan(null);
    try {
      let workflows;
      if (source === 'files') workflows = await readFiles(files);
      else {
        try {
          workflows = JSON.parse(editable);
        } catch (err) {
          throw { code: 'invalid_json', message: 'The target set is not JSON: ' + err.message };
        }
        if (!Array.isArray(workflows)) throw { code: 'invalid_json', message: 'The target set is a JSON array of specs.' };
      }
      setPlan((await request('/hub/deploy/plan', { method: 'POST', body: { workflows } })).plan);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const exportBundle = async () => {
    setError(null);
    try {
      const { bundle } = await request('/hub/deploy/export', { method: 'POST', body: { name } });
      download(tarArchive(bundle.files, { root: bundle.name }), `${bundle.name}.tar`, 'application/x-tar');
      setExported(bundle);
    } catch (err) {
      setError(err);
    }
  };
  return html`<${Page} title="Deploy">
    <form class="panel" onSubmit=${makePlan} aria-labelledby="plan-form">
      <h2 id="plan-form">Plan a deployment</h2>
      <fieldset>
        <legend>Target set</legend>
        <div class="check">
          <input id="src-current" type="radio" name="source" checked=${source === 'current'} onChange=${() => setSource('current')} />
          <label for="src-current">The deployed set, edited below</label>
        </div>
        <div class="check">
          <input id="src-files" type="radio" name="source" checked=${source === 'files'} onChange=${() => setSource('files')} />
          <label for="src-files">JSON files (a spec or an array of specs each)</label>
        </div>
      </fieldset>
      ${
        source === 'files'
          ? html`<${Field} label="Workflow files">
              ${(a) => html`<input type="file" accept=".json,application/json" multiple onChange=${(e) => setFiles([...e.currentTarget.files])} ...${a} />`}
            <//>`
          : specs
            ? html`<${TextArea} label="Target workflows (JSON array)" value=${editable} onInput=${setText} rows="14" name="target" />`
            : html`<${Loading} />`
      }
      <${ErrorBox} error=${error || current.error} />
      <div class="actions">
        <${Button} kind="primary" type="submit" disabled=${busy || (source === 'files' && !files.length)}>Plan<//>
        ${source === 'current' && text !== null ? html`<${Button} onClick=${() => setText(null)}>Reset to the deployed set<//>` : null}
      </div>
    </form>
    ${plan ? html`<${Plan} plan=${plan} />` : null}
    <section class="panel" aria-labelledby="export-title">
      <h2 id="export-title">Export a bundle</h2>
      <p class="muted">
        The deployed workflows, their regression tests, a manifest and a package.json whose <code>npm start</code> serves them: one .tar file.
      </p>
      <div class="row"><${Input} label="Bundle name" value=${name} onInput=${setName} name="bundleName" /></div>
      <${Button} onClick=${exportBundle} disabled=${!name}>Download bundle<//>
      ${exported ? html`<${Notice} kind="success">Downloaded <code>${exported.name}.tar</code> (${Object.keys(exported.files).length} files, <code>${exported.hash.slice(0, 16)}</code>).<//>` : null}
    </section>
  <//>`;
}
