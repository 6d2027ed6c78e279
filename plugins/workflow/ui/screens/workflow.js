import { html, useEffect, useRef, useState } from '../lib/preact.js';
import { request } from '../lib/api.js';
import { Badge, Button, ConfirmByName, ErrorBox, Loading, Notice, Page, formatTime, useResource } from '../lib/components.js';
import { Link, navigate } from '../lib/router.js';
import { NEW_ID, StatusBadge, can, routeText, template } from './common.js';
import { Dag } from './dag.js';
import { JsonEditor } from './json-editor.js';
import { lineOf, locate, locatePaths, parseError } from './json-paths.js';
import { TryRoute } from './try-route.js';

/** Validation errors `{path, message}` placed on their lines of `text`. */
function place(text, errors) {
  let map;
  try {
    map = locatePaths(text);
  } catch {
    map = new Map();
  }
  return errors.map((e) => {
    const at = locate(map, e.path);
    return { ...e, start: at.start, end: at.end, line: lineOf(text, at.start) };
  });
}

/**
 * One workflow: its drawing beside its JSON. Edits are parsed and validated by the server
 * (`POST /hub/workflows/validate`) as you type; errors sit on their lines and outline their steps.
 */
export default function Workflow({ params, session }) {
  const creating = params.id === NEW_ID;
  const data = useResource(async () => {
    if (creating) return { workflow: null };
    const { workflows } = await request('/hub/workflows');
    const workflow = workflows.find((w) => w.id === params.id);
    if (!workflow) throw { code: 'workflow_not_found', message: `No workflow "${params.id}" in this tenant.` };
    return { workflow };
  }, [params.id]);
  const [text, setText] = useState(null);
  const [spec, setSpec] = useState(null);
  const [problems, setProblems] = useState([]);
  const [checking, setChecking] = useState(false);
  const [saved, setSaved] = useState(null);
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [deleteError, setDeleteError] = useState(null);
  const [focusAt, setFocusAt] = useState(null);
  const seq = useRef(0);
  const timer = useRef(null);

  const workflow = data.data && data.data.workflow;
  useEffect(() => {
    if (!data.data) return;
    const initial = workflow ? workflow.spec : template;
    setText(JSON.stringify(initial, null, 2));
    setSpec(initial);
    setProblems([]);
  }, [data.data]);

  const check = (value) => {
    const mine = ++seq.current;
    let parsed;
    try {
      parsed = JSON.parse(value);
    } catch (err) {
      const pe = parseError(value, err);
      setProblems([{ path: '$', message: 'not JSON: ' + pe.message, start: pe.offset, end: pe.offset + 1, line: lineOf(value, pe.offset) }]);
      return;
    }
    setSpec(parsed);
    setChecking(true);
    request('/hub/workflows/validate', { method: 'POST', body: parsed }).then(
      (r) => {
        if (mine !== seq.current) return;
        setChecking(false);
        setProblems(place(value, r.errors));
      },
      (err) => {
        if (mine !== seq.current) return;
        setChecking(false);
        setError(err);
      },
    );
  };
  const edit = (value) => {
    setText(value);
    setSaved(null);
    clearTimeout(timer.current);
    timer.current = setTimeout(() => check(value), 350);
  };
  useEffect(() => () => clearTimeout(timer.current), []);

  const save = async () => {
    setBusy(true);
    setError(null);
    try {
      const body = JSON.parse(text);
      const answer = creating
        ? await request('/hub/workflows', { method: 'POST', body })
        : await request('/hub/workflows/' + encodeURIComponent(params.id), { method: 'PUT', body });
      setSaved(answer.workflow);
      setProblems([]);
      if (creating) navigate('/workflows/' + encodeURIComponent(answer.workflow.id), { replace: true });
      else data.reload();
    } catch (err) {
      if (err instanceof SyntaxError) check(text);
      else {
        if (err.details && Array.isArray(err.details.errors)) setProblems(place(text, err.details.errors));
        setError(err);
      }
    } finally {
      setBusy(false);
    }
  };
  const remove = async () => {
    setDeleteError(null);
    try {
      await request('/hub/workflows/' + encodeURIComponent(params.id), { method: 'DELETE' });
      navigate('/workflows');
    } catch (err) {
      setDeleteError(err);
    }
  };

  const title = creating ? 'New workflow' : 'Workflow ' + params.id;
  if (data.error) return html`<${Page} title=${title}><${ErrorBox} error=${data.error} /><//>`;
  if (text === null) return html`<${Page} title=${title}><${Loading} /><//>`;
  const mayWrite = creating ? can(session, 'workflow:create') : can(session, 'workflow:edit');
  const invalid = problems.length > 0;
  return html`<${Page}
    title=${title}
    actions=${html`${mayWrite ? html`<${Button} kind="primary" onClick=${save} disabled=${busy || invalid}>${creating ? 'Create' : 'Save'}<//>` : null}
    ${!creating && can(session, 'workflow:delete') ? html`<${Button} kind="danger" onClick=${() => setDeleting(true)}>Delete<//>` : null}`}
  >
    ${
      workflow
        ? html`<p class="wf-facts">
            <code>${routeText(workflow.route)}</code> · version <strong>${workflow.version}</strong> · ${workflow.tags.map((t) => html`<${Badge}>${t}<//> `)}
            ${workflow.searchFields.length ? html`· search fields <code>${workflow.searchFields.join(', ')}</code>` : null} ·
            updated${' '}${formatTime(workflow.updatedAt)} · <${Link} href=${'/traces?workflow=' + encodeURIComponent(workflow.id)}>its traces<//>
          </p>`
        : html`<p class="muted">Write the spec (docs/workflow.md); it is checked as you type and served at its route once created.</p>`
    }
    ${saved ? html`<${Notice} kind="success">Saved version <strong>${saved.version}</strong>: <code>${routeText(saved.route)}</code> is served now.<//>` : null}
    <${ErrorBox} error=${error} />
    <div class="wf-split">
      <section class="panel wf-drawing" aria-labelledby="wf-drawing-title">
        <h2 id="wf-drawing-title">Drawing</h2>
        <div class="dag-wrap" tabindex="0" aria-label="Drawing, scrollable">
          <${Dag}
            spec=${spec}
            errors=${problems}
            onSelect=${(path) => {
              // A step clicked in the drawing is selected in the JSON.
              try {
                const at = locate(locatePaths(text), path);
                setFocusAt({ start: at.start, end: at.end, line: lineOf(text, at.start) });
              } catch {
                setFocusAt(null);
              }
            }}
          />
        </div>
      </section>
      <section class="panel wf-json" aria-labelledby="wf-json-title">
        <h2 id="wf-json-title">Specification</h2>
        <p class="muted" aria-live="polite">
          ${checking ? 'Checking…' : invalid ? `${problems.length} problem${problems.length === 1 ? '' : 's'}` : html`<${StatusBadge} status="passed" /> valid`}
        </p>
        <${JsonEditor} label="Workflow JSON" value=${text} onInput=${edit} problems=${problems} readOnly=${!mayWrite} focusAt=${focusAt} />
      </section>
    </div>
    ${workflow ? html`<${TryRoute} workflow=${workflow} />` : null}
    <${ConfirmByName} open=${deleting} name=${params.id} what="workflow" onConfirm=${remove} onClose=${() => setDeleting(false)} error=${deleteError} />
  <//>`;
}
