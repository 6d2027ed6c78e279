import { html, useEffect, useRef, useState } from '../lib/preact.js';
import { request, urlFor } from '../lib/api.js';
import { Checkbox, ErrorBox, Input, Page, Select, Table, useResource } from '../lib/components.js';
import { useLocation } from '../lib/router.js';

/** The suggestion types in the order they are shown, with the headings of their groups. */
export const suggestionTypes = [
  ['query', 'Past searches'],
  ['phrase', 'Phrases'],
  ['category', 'Categories'],
  ['document', 'Documents'],
  ['entity', 'Entities'],
  ['visual_tag', 'Visual tags'],
  ['motif', 'Motifs'],
  ['color', 'Colours'],
];

const flags = [
  ['includeCategories', 'Categories'],
  ['includeDocuments', 'Documents (titles)'],
  ['includeGraphEntities', 'Knowledge-graph entities'],
  ['includeVisualTags', 'Visual tags, motifs and colours'],
];

const debounceMs = 150;

function detail(s) {
  if (s.type === 'category' && s.payload && s.payload.field) return 'field ' + s.payload.field;
  if (s.type === 'entity' && s.payload && s.payload.entityType) return String(s.payload.entityType);
  if (s.docId !== undefined) return 'document ' + s.docId;
  return '';
}

/** Suggestions grouped by type, each group a table (text, score, count, detail). */
export function SuggestionGroups({ suggestions }) {
  const groups = suggestionTypes.map(([type, title]) => ({ type, title, rows: suggestions.filter((s) => s.type === type) })).filter((g) => g.rows.length > 0);
  const known = new Set(suggestionTypes.map(([t]) => t));
  const other = suggestions.filter((s) => !known.has(s.type));
  if (other.length) groups.push({ type: 'other', title: 'Other', rows: other });
  return html`<div class="suggestion-groups">
    ${groups.map(
      (g) =>
        html`<section key=${g.type} class="panel" aria-label=${g.title} data-type=${g.type}>
          <${Table}
            caption=${g.title + ' (' + g.rows.length + ')'}
            rows=${g.rows}
            columns=${[
              { key: 'text', label: 'Suggestion' },
              { label: 'Score', render: (s) => Number(s.score).toFixed(3) },
              { label: 'Count', render: (s) => String(s.count ?? '') },
              { label: 'Detail', render: detail },
            ]}
          />
        </section>`,
    )}
  </div>`;
}

export default function AutocompletePreview() {
  const loc = useLocation();
  const indexes = useResource(() => request(urlFor('search', '/v1/indexes')), []);
  const [picked, setPicked] = useState(loc.query.get('index') || '');
  const [q, setQ] = useState('');
  const [size, setSize] = useState('10');
  const [include, setInclude] = useState({ includeCategories: true, includeDocuments: true, includeGraphEntities: true, includeVisualTags: true });
  const [answer, setAnswer] = useState(null);
  const [error, setError] = useState(null);
  const seq = useRef(0);
  const names = indexes.data ? indexes.data.indexes.map((i) => i.name) : [];
  const index = picked || names[0] || '';

  // Debounced: asked 150 ms after the last keystroke; an answer to an older request is dropped.
  useEffect(() => {
    const mine = ++seq.current;
    if (!index || !q.trim()) {
      setAnswer(null);
      setError(null);
      return undefined;
    }
    const timer = setTimeout(async () => {
      try {
        const body = { q, size: Number(size) || 10, ...include };
        const result = await request(urlFor('search', '/v1/indexes/' + encodeURIComponent(index) + '/autocomplete'), { method: 'POST', body });
        if (mine !== seq.current) return;
        setAnswer(result);
        setError(null);
      } catch (err) {
        if (mine !== seq.current) return;
        setAnswer(null);
        setError(err);
      }
    }, debounceMs);
    return () => clearTimeout(timer);
  }, [index, q, size, include]);

  return html`<${Page} title="Autocomplete preview">
    <form class="panel" role="search" onSubmit=${(e) => e.preventDefault()}>
      <div class="row">
        <${Select} label="Index" value=${index} onChange=${setPicked} options=${names} />
        <${Input} label="Size" type="number" min="1" max="100" value=${size} onInput=${setSize} />
      </div>
      <${Input} label="Type to see suggestions" value=${q} onInput=${setQ} autocomplete="off" hint="Suggestions are asked 150 ms after the last keystroke." />
      <fieldset>
        <legend>Sources</legend>
        ${flags.map(([flag, label]) => html`<${Checkbox} key=${flag} label=${label} checked=${include[flag]} onChange=${(v) => setInclude({ ...include, [flag]: v })} />`)}
      </fieldset>
    </form>
    <${ErrorBox} error=${indexes.error || error} />
    ${
      answer
        ? html`<p role="status" aria-live="polite">
              ${answer.suggestions.length} ${answer.suggestions.length === 1 ? 'suggestion' : 'suggestions'} for <q>${answer.query}</q>
            </p>
            <${SuggestionGroups} suggestions=${answer.suggestions} />`
        : null
    }
  <//>`;
}
