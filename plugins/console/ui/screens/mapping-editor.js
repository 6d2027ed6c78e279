import { html } from '../lib/preact.js';
import { Button, Checkbox, Input, Select } from '../lib/components.js';

export const fieldTypes = ['text', 'keyword', 'number', 'boolean', 'date', 'geo_point'];
export const analyzers = ['standard', 'english', 'keyword'];
/** The leaves of `_visual` the search service maps itself on an index with an image field (docs/image-metadata.md). */
export const visualLeaves = ['_visual.text', '_visual.tags', '_visual.colors', '_visual.motifs', '_visual.keywords'];

/**
 * The rules POST /v1/indexes checks (docs/api.md, "FieldMapping"), checked as the operator types
 * so that most mistakes show before a request; the server's own issues are shown on submit, on the
 * row they name.
 */
export function mappingIssues(rows) {
  const issues = {};
  const paths = rows.map((r) => r.field.trim());
  rows.forEach((r, i) => {
    const p = paths[i];
    let problem;
    if (!p) problem = 'A field path is required.';
    else if (p.length > 256) problem = 'At most 256 characters.';
    else if (p.split('.').some((s) => s === '')) problem = 'Dot-separated names, none empty.';
    else if (p === '_vector') problem = '_vector is reserved (set vectorDimensions instead).';
    else if ((p === '_visual' || p.startsWith('_visual.')) && !visualLeaves.includes(p))
      problem = '_visual is reserved for the metadata of image fields (the index maps it itself).';
    else if (p === 'id' && r.type !== 'keyword') problem = 'id can only be mapped as keyword.';
    else if (r.image && r.type !== 'keyword') problem = `An image field is a keyword field (its value references the image), not ${r.type}.`;
    else if (paths.indexOf(p) !== i) problem = 'Mapped twice.';
    else if (paths.some((q, j) => j !== i && q && (q.startsWith(p + '.') || p.startsWith(q + '.'))))
      problem = 'A path cannot sit inside another mapped path (there is no object type).';
    if (problem) issues[i] = problem;
  });
  return issues;
}

export function rowsToMappings(rows) {
  const out = {};
  for (const r of rows) {
    const m = { type: r.type };
    if (r.type === 'text' && r.analyzer) m.analyzer = r.analyzer;
    if (!r.index) m.index = false;
    if (r.image) m.image = true;
    out[r.field.trim()] = m;
  }
  return out;
}

export function mappingsToRows(mappings) {
  return Object.entries(mappings || {}).map(([field, m]) => ({
    field,
    type: m.type,
    analyzer: m.analyzer || 'standard',
    index: m.index !== false,
    image: m.image === true,
    existing: true,
  }));
}

/**
 * Rows of field path, type, analyzer, index flag and image flag (a keyword field whose value
 * references an image: a path under the media root, a data: URI or a URL; its documents gain
 * `_visual`); `issues` by row index (client or server).
 */
export function MappingEditor({ rows, onChange, issues = {}, lockExisting = false }) {
  const set = (i, patch) => onChange(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return html`<fieldset class="mapping-editor">
    <legend>Field mappings</legend>
    ${rows.length === 0 ? html`<p class="muted">No mapped fields yet.</p>` : null}
    ${rows.map(
      (r, i) =>
        html`<div class="mapping-row" key=${i}>
          <${Input}
            label=${`Field ${i + 1} path`}
            value=${r.field}
            onInput=${(v) => set(i, { field: v })}
            error=${issues[i]}
            disabled=${lockExisting && r.existing}
          />
          <${Select} label="Type" value=${r.type} options=${fieldTypes} onChange=${(v) => set(i, { type: v })} disabled=${lockExisting && r.existing} />
          ${r.type === 'text' ? html`<${Select} label="Analyzer" value=${r.analyzer} options=${analyzers} onChange=${(v) => set(i, { analyzer: v })} />` : html`<span></span>`}
          <div>
            <${Checkbox} label="Indexed" checked=${r.index} onChange=${(v) => set(i, { index: v })} />
            <${Checkbox}
              label="Image"
              title="The value references an image (a path under the media root, a data: URI or a URL); text, colours and motifs are extracted into _visual"
              checked=${r.image === true}
              onChange=${(v) => set(i, { image: v })}
              disabled=${r.field.startsWith('_visual.')}
            />
          </div>
          ${lockExisting && r.existing ? html`<span></span>` : html`<${Button} kind="ghost" aria-label=${`Remove field ${i + 1}`} onClick=${() => onChange(rows.filter((_, j) => j !== i))}>Remove<//>`}
        </div>`,
    )}
    <${Button} onClick=${() => onChange([...rows, { field: '', type: 'text', analyzer: 'standard', index: true, image: false }])}>Add field<//>
  </fieldset>`;
}

/** Server issues (`details.issues[].path` such as `mappings.title.analyzer`) placed on their rows. */
export function serverIssuesByRow(error, rows) {
  const out = {};
  const issues = (error && error.details && error.details.issues) || [];
  for (const issue of issues) {
    const path = String(issue.path || '');
    if (!path.startsWith('mappings.')) continue;
    const rest = path.slice('mappings.'.length);
    const i = rows.findIndex((r) => rest === r.field.trim() || rest.startsWith(r.field.trim() + '.'));
    if (i !== -1) out[i] = issue.message;
  }
  return out;
}
