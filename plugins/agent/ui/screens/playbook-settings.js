import { html, useEffect, useState } from '../lib/preact.js';
import { request } from '../lib/api.js';
import { Button, Checkbox, ErrorBox, Input, Notice, Select, TextArea, formatTime, useResource } from '../lib/components.js';
import { states, stateLabel } from './jobs-api.js';

const events = ['assigned', 'labeled', 'opened'];
const methods = ['merge', 'squash', 'rebase'];
const lines = (text) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);

/** The form's values from a configuration (lists as one item a line, numbers as text). */
function formOf(c) {
  return {
    listener: {
      ...c.listener,
      labels: c.listener.labels.join('\n'),
      assignees: c.listener.assignees.join('\n'),
      repositories: c.listener.repositories.join('\n'),
    },
    autoComment: { ...c.autoComment },
    autoMerge: {
      ...c.autoMerge,
      maxChangedLines: String(c.autoMerge.maxChangedLines),
      maxFiles: String(c.autoMerge.maxFiles),
      protectedPaths: c.autoMerge.protectedPaths.join('\n'),
      requiredLabels: c.autoMerge.requiredLabels.join('\n'),
    },
    review: { ...c.review },
  };
}

/** A number field is sent as a number when it reads as one, as typed otherwise (the server names the field). */
const num = (s) => (s.trim() !== '' && Number.isFinite(Number(s)) ? Number(s) : s);

function bodyOf(f) {
  return {
    listener: { ...f.listener, labels: lines(f.listener.labels), assignees: lines(f.listener.assignees), repositories: lines(f.listener.repositories) },
    autoComment: f.autoComment,
    autoMerge: {
      ...f.autoMerge,
      maxChangedLines: num(f.autoMerge.maxChangedLines),
      maxFiles: num(f.autoMerge.maxFiles),
      protectedPaths: lines(f.autoMerge.protectedPaths),
      requiredLabels: lines(f.autoMerge.requiredLabels),
    },
    review: f.review,
  };
}

/** The server's field issues by form field: `body.autoMerge.protectedPaths[2]` → `autoMerge.protectedPaths`: "line 3: …". */
function fieldErrors(error) {
  const out = {};
  const issues = error && error.details && Array.isArray(error.details.issues) ? error.details.issues : [];
  for (const i of issues) {
    const m = /^body\.(\w+)\.(\w+)(?:\[(\d+)\])?/.exec(i.path || '');
    if (!m) continue;
    const key = m[1] + '.' + m[2];
    const text = (m[3] !== undefined ? `line ${Number(m[3]) + 1}: ` : '') + i.message;
    out[key] = out[key] ? out[key] + ' ' + text : text;
  }
  return out;
}

/** A set of choices as checkboxes in a fieldset. */
function Choices({ legend, all, value, onChange, label = (x) => x }) {
  return html`<fieldset class="choices">
    <legend>${legend}</legend>
    ${all.map(
      (x) =>
        html`<${Checkbox}
          label=${label(x)}
          checked=${value.includes(x)}
          onChange=${(on) => onChange(on ? all.filter((y) => y === x || value.includes(y)) : value.filter((y) => y !== x))}
        />`,
    )}
  </fieldset>`;
}

/**
 * The playbook configuration (`GET`/`POST /api/v1/playbooks/config`): which tracker events start a
 * job, what is commented back on the ticket, when a pull request merges without a human, and the
 * review model. The server validates; its field issues are shown on their fields.
 */
export function PlaybookSettings() {
  const current = useResource(() => request('/api/v1/playbooks/config'), []);
  const [form, setForm] = useState(null);
  const [error, setError] = useState(null);
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (current.data) setForm(formOf(current.data.config));
  }, [current.data]);
  const set = (section, key) => (v) => {
    setSaved(false);
    setForm((f) => ({ ...f, [section]: { ...f[section], [key]: v } }));
  };
  const errs = fieldErrors(error);
  const submit = async (e) => {
    e.preventDefault();
    setError(null);
    setSaved(false);
    setBusy(true);
    try {
      const view = await request('/api/v1/playbooks/config', { method: 'POST', body: bodyOf(form) });
      setForm(formOf(view.config));
      setSaved(true);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const d = current.data;
  return html`<section class="card" aria-labelledby="playbooks">
    <h2 id="playbooks">Playbook configuration</h2>
    <${ErrorBox} error=${current.error} />
    ${d ? html`<p class="muted">${d.defaults ? 'The defaults (never saved).' : 'Saved ' + formatTime(d.updatedAt) + '.'}</p>` : null}
    ${
      form
        ? html`<form onSubmit=${submit} aria-label="Playbook configuration">
            <fieldset>
              <legend>Issue listener: which stories start a ticket job</legend>
              <${Checkbox} label="Listen to tracker events" checked=${form.listener.enabled} onChange=${set('listener', 'enabled')} />
              <${Choices} legend="Events" all=${events} value=${form.listener.events} onChange=${set('listener', 'events')} />
              <${TextArea}
                label="Labels (one a line; none: any)"
                rows=${3}
                value=${form.listener.labels}
                onInput=${set('listener', 'labels')}
                error=${errs['listener.labels']}
              />
              <${TextArea}
                label="Assignees (one a line; none: any)"
                rows=${3}
                value=${form.listener.assignees}
                onInput=${set('listener', 'assignees')}
                error=${errs['listener.assignees']}
              />
              <${TextArea}
                label="Repositories (owner/repo patterns, one a line; none: any)"
                rows=${3}
                value=${form.listener.repositories}
                onInput=${set('listener', 'repositories')}
                error=${errs['listener.repositories']}
              />
            </fieldset>
            <fieldset>
              <legend>Auto-commenting on the ticket</legend>
              <${Checkbox} label="Post progress comments" checked=${form.autoComment.enabled} onChange=${set('autoComment', 'enabled')} />
              <${Choices}
                legend="States that post a comment"
                all=${states}
                value=${form.autoComment.states}
                onChange=${set('autoComment', 'states')}
                label=${stateLabel}
              />
              <${Checkbox} label="Post the pull request's link" checked=${form.autoComment.pullRequest} onChange=${set('autoComment', 'pullRequest')} />
              <${Checkbox} label="Post the auto-merge decision" checked=${form.autoComment.mergeDecision} onChange=${set('autoComment', 'mergeDecision')} />
            </fieldset>
            <fieldset>
              <legend>Auto-merge criteria</legend>
              <${Checkbox} label="Merge pull requests that meet every criterion" checked=${form.autoMerge.enabled} onChange=${set('autoMerge', 'enabled')} />
              <${Checkbox} label="Tests must pass" checked=${form.autoMerge.requireTestsPassed} onChange=${set('autoMerge', 'requireTestsPassed')} />
              <${Checkbox} label="The review must approve" checked=${form.autoMerge.requireApproval} onChange=${set('autoMerge', 'requireApproval')} />
              <${Input}
                label="Most changed lines"
                inputmode="numeric"
                value=${form.autoMerge.maxChangedLines}
                onInput=${set('autoMerge', 'maxChangedLines')}
                error=${errs['autoMerge.maxChangedLines']}
              />
              <${Input}
                label="Most files"
                inputmode="numeric"
                value=${form.autoMerge.maxFiles}
                onInput=${set('autoMerge', 'maxFiles')}
                error=${errs['autoMerge.maxFiles']}
              />
              <${TextArea}
                label="Protected paths (globs, one a line: never merged automatically)"
                rows=${5}
                value=${form.autoMerge.protectedPaths}
                onInput=${set('autoMerge', 'protectedPaths')}
                error=${errs['autoMerge.protectedPaths']}
              />
              <${TextArea}
                label="Required labels (one a line)"
                rows=${2}
                value=${form.autoMerge.requiredLabels}
                onInput=${set('autoMerge', 'requiredLabels')}
                error=${errs['autoMerge.requiredLabels']}
              />
              <${Select} label="Merge method" value=${form.autoMerge.method} onChange=${set('autoMerge', 'method')} options=${methods} />
            </fieldset>
            <fieldset>
              <legend>Review</legend>
              <${Input}
                label="Review model (a tier such as tier:6, a task class or a model id)"
                value=${form.review.model}
                onInput=${set('review', 'model')}
                error=${errs['review.model']}
              />
              <${Checkbox} label="Post the review on the pull request" checked=${form.review.post} onChange=${set('review', 'post')} />
            </fieldset>
            <${ErrorBox} error=${error} />
            ${saved ? html`<${Notice} kind="success">Playbook configuration saved.<//>` : null}
            <${Button} kind="primary" type="submit" disabled=${busy}>Save playbooks<//>
          </form>`
        : null
    }
  </section>`;
}
