import { html, useEffect, useMemo, useState } from '../lib/preact.js';
import { request, urlFor } from '../lib/api.js';
import { Button, ConfirmByName, ErrorBox, Json, Loading, Notice, Page, TextArea, formatBytes, formatTime, useResource } from '../lib/components.js';
import { Link, navigate } from '../lib/router.js';
import { MappingEditor, mappingIssues, mappingsToRows, rowsToMappings, serverIssuesByRow } from './mapping-editor.js';

/** Settings whose change re-indexes the stored documents (docs/api.md, "Changing an index"). */
const reindexingSettings = ['dynamic', 'vectorQuantization', 'embedder'];

/** What a PATCH would do, told before it is sent: which fields are new or changed, and whether it re-indexes. */
function planOf(index, rows, settings) {
  const before = index.mappings;
  const after = rowsToMappings(rows);
  const added = Object.keys(after).filter((f) => !before[f]);
  const changed = Object.keys(after).filter(
    (f) => before[f] && ((after[f].analyzer || before[f].analyzer) !== before[f].analyzer || (after[f].index !== false) !== before[f].index),
  );
  // Turning image on or off applies to documents written from then on: no re-index by itself.
  const imageChanged = Object.keys(after).filter((f) => before[f] && !changed.includes(f) && (after[f].image === true) !== (before[f].image === true));
  // ...but the first image field adds the `_visual.*` mappings, which the stored documents are re-read for.
  const addsVisual = !before['_visual.text'] && Object.values(after).some((m) => m.image === true);
  const settingChanges = Object.keys(settings).filter((k) => JSON.stringify(settings[k]) !== JSON.stringify(index.settings[k]));
  const reindex =
    index.docCount > 0 &&
    (added.length > 0 ||
      changed.length > 0 ||
      addsVisual ||
      settingChanges.some((k) => reindexingSettings.includes(k) || (k === 'embedder' && index.settings.autoEmbed)));
  const mappings = {};
  for (const f of [...added, ...changed]) mappings[f] = after[f];
  // Sent explicitly, off included: an absent flag keeps the field's current one.
  for (const f of imageChanged) mappings[f] = { ...after[f], image: after[f].image === true };
  const patch = {};
  if (Object.keys(mappings).length) patch.mappings = mappings;
  if (settingChanges.length) patch.settings = Object.fromEntries(settingChanges.map((k) => [k, settings[k]]));
  return { added, changed: [...changed, ...imageChanged], settingChanges, reindex, patch };
}

function EditIndex({ index, onSaved }) {
  const [rows, setRows] = useState(mappingsToRows(index.mappings));
  const [settingsText, setSettingsText] = useState(JSON.stringify(index.settings, null, 2));
  const [error, setError] = useState(null);
  const [result, setResult] = useState(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    setRows(mappingsToRows(index.mappings));
    setSettingsText(JSON.stringify(index.settings, null, 2));
  }, [index.updatedAt]);
  let settings;
  let settingsError;
  try {
    settings = JSON.parse(settingsText);
    if (!settings || typeof settings !== 'object' || Array.isArray(settings)) throw new Error('Settings must be a JSON object.');
  } catch (e) {
    settingsError = e.message;
  }
  const clientIssues = useMemo(() => mappingIssues(rows), [rows]);
  const plan = settings ? planOf(index, rows, settings) : null;
  const empty = !plan || Object.keys(plan.patch).length === 0;
  const save = async () => {
    setBusy(true);
    setError(null);
    setResult(null);
    try {
      const answer = await request(urlFor('search', '/v1/indexes/' + encodeURIComponent(index.name)), { method: 'PATCH', body: plan.patch });
      setResult(answer);
      onSaved();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return html`<section class="panel" aria-labelledby="edit-index">
    <h2 id="edit-index">Mappings and settings</h2>
    <p class="muted">Existing fields keep their type (a type change needs a new index); their analyzer, indexed and image flags can change.</p>
    <${MappingEditor} rows=${rows} onChange=${setRows} issues=${{ ...serverIssuesByRow(error, rows), ...clientIssues }} lockExisting=${true} />
    <${TextArea} label="Settings (JSON)" value=${settingsText} onInput=${setSettingsText} error=${settingsError} rows=${10} />
    ${
      plan && !empty
        ? html`<${Notice} kind=${plan.reindex ? 'warn' : 'info'}>
            ${plan.added.length ? html`<span>New fields: ${plan.added.join(', ')}. </span>` : null}
            ${plan.changed.length ? html`<span>Changed fields: ${plan.changed.join(', ')}. </span>` : null}
            ${plan.settingChanges.length ? html`<span>Changed settings: ${plan.settingChanges.join(', ')}. </span>` : null}
            <strong
              >${plan.reindex ? `This re-indexes all ${index.docCount} documents before it answers.` : 'No re-index: takes effect at the next search.'}</strong
            >
          <//>`
        : null
    }
    <${ErrorBox} error=${error} />
    ${result ? html`<${Notice} kind="success">Saved. ${result.reindexed ? 'The index was re-indexed.' : 'No re-index was needed.'}<//>` : null}
    <${Button} kind="primary" disabled=${busy || empty || settingsError || Object.keys(clientIssues).length > 0} onClick=${save}
      >${busy ? 'Applying…' : 'Apply changes'}<//
    >
  </section>`;
}

/** The index's bytes in the store, with what they are made of. */
function sizeText(stats) {
  if (stats.bytes === undefined) return 'size unknown';
  const s = stats.sizes || {};
  return `${formatBytes(stats.bytes)} stored (sources ${formatBytes(s.documents)}, segments ${formatBytes(s.segments)}, vector graphs ${formatBytes(s.graphs)})`;
}

export default function IndexDetail({ params }) {
  const path = '/v1/indexes/' + encodeURIComponent(params.name);
  const res = useResource(() => request(urlFor('search', path)), [params.name]);
  const [confirm, setConfirm] = useState(false);
  const [deleteError, setDeleteError] = useState(null);
  const [busy, setBusy] = useState(false);
  const index = res.data && res.data.index;
  const drop = async () => {
    setBusy(true);
    try {
      await request(urlFor('search', path), { method: 'DELETE' });
      navigate('/indexes');
    } catch (err) {
      setDeleteError(err);
    } finally {
      setBusy(false);
    }
  };
  return html`<${Page}
    title=${'Index ' + params.name}
    actions=${html`<${Link} class="btn btn-secondary" href=${'/indexes/' + encodeURIComponent(params.name) + '/documents'}>Documents<//>
      <${Link} class="btn btn-secondary" href=${'/search?index=' + encodeURIComponent(params.name)}>Search<//>
      <${Button} kind="danger" onClick=${() => setConfirm(true)}>Delete index<//>`}
  >
    <${ErrorBox} error=${res.error} />
    ${
      !index
        ? res.loading
          ? html`<${Loading} />`
          : null
        : html`<p>
              ${index.docCount} documents · ${index.stats.segments} segments · ${index.stats.deletedDocs} deleted not yet merged · ${sizeText(index.stats)} ·
              created ${formatTime(index.createdAt)} · updated ${formatTime(index.updatedAt)}
            </p>
            ${
              index.stats.embedder
                ? html`<details>
                    <summary>Embedder</summary>
                    <${Json} value=${index.stats.embedder} />
                  </details>`
                : null
            }
            <${EditIndex} index=${index} onSaved=${res.reload} />`
    }
    <${ConfirmByName} open=${confirm} name=${params.name} what="index" busy=${busy} error=${deleteError} onConfirm=${drop} onClose=${() => setConfirm(false)} />
  <//>`;
}
