import { html, useState } from '../lib/preact.js';
import { asCurl, directUrl, request, urlFor } from '../lib/api.js';
import { Button, Checkbox, CopyButton, ErrorBox, Highlight, Input, Json, Page, Select, Table, TextArea, useResource } from '../lib/components.js';
import { useLocation } from '../lib/router.js';

const list = (s) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

/** The request body the form describes; `problems` for what cannot be sent. */
function buildQuery(f) {
  const body = { q: f.q, mode: f.mode, size: Number(f.size) || 10 };
  const problems = {};
  if (f.fields.trim()) body.fields = list(f.fields);
  if (f.select.trim()) body.select = list(f.select);
  if (f.operator) body.operator = f.operator;
  if (f.filter.trim()) {
    try {
      body.filter = JSON.parse(f.filter);
    } catch (e) {
      problems.filter = 'Not JSON: ' + e.message;
    }
  }
  if (f.mode === 'semantic' || f.mode === 'hybrid') {
    if (f.vector.trim()) {
      try {
        body.vector = JSON.parse(f.vector);
      } catch (e) {
        problems.vector = 'Not a JSON array: ' + e.message;
      }
    }
  }
  if (f.mode === 'hybrid') {
    // Empty: the server's default (0.3, or 0 for a lexical embedder; docs/search-query.md).
    if (f.ratio.trim() !== '') body.semanticRatio = Number(f.ratio);
    body.explain = f.explain;
  }
  if (f.mode === 'geo') {
    body.geo = { lat: Number(f.lat), lon: Number(f.lon), radius: f.radius };
    if (f.geoField.trim()) body.geo.field = f.geoField.trim();
  }
  return { body, problems };
}

function Hit({ hit }) {
  const fields = Object.entries(hit.highlight || {});
  return html`<li class="hit">
    <div class="hit-head">
      <strong>${hit.id}</strong> <span class="muted">score ${Number(hit.score).toFixed(4)}</span>
      ${hit.distanceMeters !== undefined ? html`<span class="muted"> · ${Math.round(hit.distanceMeters)} m</span>` : null}
    </div>
    ${fields.map(
      ([field, fragments]) => html`<p class="hl"><span class="muted">${field}:</span> ${fragments.map((f) => html`<${Highlight} fragment=${f} /> `)}</p>`,
    )}
    <details>
      <summary>Source</summary>
      <${Json} value=${hit.source} label=${'Source of ' + hit.id} />
    </details>
  </li>`;
}

/** Hybrid `explain`: the fused order beside each list's own ranks. */
function Explain({ hits }) {
  const side = (key) =>
    hits
      .filter((h) => h.explain && h.explain[key])
      .sort((a, b) => a.explain[key].rank - b.explain[key].rank)
      .map((h) => ({ id: h.id, rank: h.explain[key].rank, score: h.explain[key].score }));
  const cols = [
    { label: 'Rank', render: (r) => String(r.rank) },
    { key: 'id', label: 'Id' },
    { label: 'Score', render: (r) => Number(r.score).toFixed(4) },
  ];
  return html`<section aria-labelledby="explain" class="explain">
    <h2 id="explain">Hybrid ranking explained</h2>
    <div class="columns">
      <${Table}
        caption="Fused (RRF)"
        rows=${hits.map((h, i) => ({ id: h.id, rank: i + 1, score: h.explain ? h.explain.rrfScore : h.score }))}
        columns=${cols}
      />
      <${Table} caption="Keyword (BM25)" rows=${side('keyword')} columns=${cols} empty="No keyword hits." />
      <${Table} caption="Semantic (vectors)" rows=${side('semantic')} columns=${cols} empty="No semantic hits." />
    </div>
  </section>`;
}

export default function SearchPlayground() {
  const loc = useLocation();
  const indexes = useResource(() => request(urlFor('search', '/v1/indexes')), []);
  const [f, setF] = useState({
    index: loc.query.get('index') || '',
    q: '',
    mode: 'keyword',
    fields: '',
    select: '',
    operator: '',
    filter: '',
    size: '10',
    vector: '',
    ratio: '',
    explain: true,
    lat: '',
    lon: '',
    radius: '25km',
    geoField: '',
  });
  const [answer, setAnswer] = useState(null);
  const [error, setError] = useState(null);
  const set = (k) => (v) => setF({ ...f, [k]: v });
  const names = indexes.data ? indexes.data.indexes.map((i) => i.name) : [];
  const index = f.index || names[0] || '';
  const path = '/v1/indexes/' + encodeURIComponent(index) + '/search';
  const { body, problems } = buildQuery(f);
  const submit = async (e) => {
    e.preventDefault();
    setError(null);
    try {
      setAnswer({ mode: f.mode, ...(await request(urlFor('search', path), { method: 'POST', body })) });
    } catch (err) {
      setAnswer(null);
      setError(err);
    }
  };
  return html`<${Page} title="Search playground">
    <form role="search" class="panel" onSubmit=${submit}>
      <div class="row">
        <${Select} label="Index" value=${index} onChange=${set('index')} options=${names} />
        <${Select} label="Mode" value=${f.mode} onChange=${set('mode')} options=${['keyword', 'semantic', 'hybrid', 'geo']} />
        <${Input} label="Size" type="number" min="0" max="1000" value=${f.size} onInput=${set('size')} />
        <${Select} label="Operator" value=${f.operator} onChange=${set('operator')} options=${[{ value: '', label: 'index default' }, 'AND', 'OR']} />
      </div>
      <${Input}
        label="Query"
        value=${f.q}
        onInput=${set('q')}
        hint='Words, "phrases", field:word, -exclusions, and natural "and"/"or"/"not" (see the query language).'
      />
      <div class="row">
        <${Input} label="Fields (comma separated, title^2 boosts)" value=${f.fields} onInput=${set('fields')} />
        <${Input} label="Return only (select, comma separated)" value=${f.select} onInput=${set('select')} />
      </div>
      <${TextArea} label="Filter (JSON)" rows=${3} value=${f.filter} onInput=${set('filter')} error=${problems.filter} hint='{"eq": {"genre": "fiction"}}' />
      ${
        f.mode === 'semantic' || f.mode === 'hybrid'
          ? html`<${TextArea}
              label="Query vector (JSON array; empty embeds the query when the index has autoEmbed)"
              rows=${2}
              value=${f.vector}
              onInput=${set('vector')}
              error=${problems.vector}
            />`
          : null
      }
      ${
        f.mode === 'hybrid'
          ? html`<div class="row">
              <${Input}
                label="Semantic ratio (0 to 1, empty for the default)"
                type="number"
                step="0.05"
                min="0"
                max="1"
                value=${f.ratio}
                onInput=${set('ratio')}
              />
              <${Checkbox} label="Explain the ranking" checked=${f.explain} onChange=${set('explain')} />
            </div>`
          : null
      }
      ${
        f.mode === 'geo'
          ? html`<div class="row">
              <${Input} label="Latitude" type="number" step="any" value=${f.lat} onInput=${set('lat')} />
              <${Input} label="Longitude" type="number" step="any" value=${f.lon} onInput=${set('lon')} />
              <${Input} label="Radius" value=${f.radius} onInput=${set('radius')} hint="300m, 25km, 1.5mi" />
              <${Input} label="Geo field (optional)" value=${f.geoField} onInput=${set('geoField')} />
            </div>`
          : null
      }
      <${Button} kind="primary" type="submit" disabled=${!index || Object.keys(problems).length > 0}>Search<//>
    </form>
    <details class="panel">
      <summary>The request as curl</summary>
      <pre class="json" tabindex="0" aria-label="curl command">${asCurl(directUrl('search', path), 'POST', body)}</pre>
      <${CopyButton} text=${asCurl(directUrl('search', path), 'POST', body)} label="Copy curl" />
    </details>
    <${ErrorBox} error=${error} />
    ${
      answer
        ? html`<section aria-labelledby="results">
            <h2 id="results">${answer.total} hits <span class="muted">in ${answer.tookMs} ms</span></h2>
            ${answer.mode === 'hybrid' && answer.hits.some((h) => h.explain) ? html`<${Explain} hits=${answer.hits} />` : null}
            <ol class="hits">
              ${answer.hits.map((h) => html`<${Hit} key=${h.id} hit=${h} />`)}
            </ol>
          </section>`
        : null
    }
  <//>`;
}
