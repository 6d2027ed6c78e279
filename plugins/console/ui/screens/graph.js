import { html, useState } from '../lib/preact.js';
import { request, urlFor } from '../lib/api.js';
import { Badge, Button, ErrorBox, Input, Json, Loading, Page, Select, Table, useResource } from '../lib/components.js';
import { Link, useLocation } from '../lib/router.js';
import { GraphDrawing } from './graph-drawing.js';

const maxNeighbours = 24;

async function loadEntity(base, id) {
  const one = await request(urlFor('graph', base + '/graph/entities/' + encodeURIComponent(id)));
  const ids = [];
  for (const t of one.triples) for (const other of [t.subject, t.object]) if (other !== id && !ids.includes(other)) ids.push(other);
  const shown = ids.slice(0, maxNeighbours);
  // Each neighbour's name and type (the triples name ids only).
  const neighbours = await Promise.all(
    shown.map((n) =>
      request(urlFor('graph', base + '/graph/entities/' + encodeURIComponent(n))).then(
        (r) => r.entity,
        () => ({ id: n, name: n, type: '?' }),
      ),
    ),
  );
  return { ...one, neighbours, hidden: ids.length - shown.length };
}

function EntityView({ index, base, id, onPick }) {
  const res = useResource(() => loadEntity(base, id), [base, id]);
  if (res.error) return html`<${ErrorBox} error=${res.error} />`;
  if (!res.data) return html`<${Loading} />`;
  const { entity, triples, neighbours, mentionedIn, hidden } = res.data;
  const names = new Map([[entity.id, entity.name], ...neighbours.map((e) => [e.id, e.name])]);
  const docs = [...new Set([...(entity.docIds || []), ...mentionedIn])].sort();
  const docsPath = '/indexes/' + encodeURIComponent(index) + '/documents?id=';
  return html`<section class="panel" aria-labelledby="entity-title">
    <h2 id="entity-title">${entity.name} <${Badge} kind="info">${entity.type}<//></h2>
    <p class="muted">id ${entity.id}${entity.aliases && entity.aliases.length ? ' · also ' + entity.aliases.join(', ') : ''}</p>
    <${GraphDrawing} entity=${entity} neighbours=${neighbours} triples=${triples} />
    ${hidden > 0 ? html`<p class="muted">${hidden} more neighbours are not drawn.</p>` : null}
    <${Table}
      caption="Neighbours"
      rows=${neighbours}
      rowKey=${(e) => e.id}
      empty="No neighbours."
      columns=${[
        { label: 'Name', render: (e) => html`<button type="button" class="link" onClick=${() => onPick(e.id)}>${e.name}</button>` },
        { key: 'type', label: 'Type' },
        { key: 'id', label: 'Id' },
      ]}
    />
    <${Table}
      caption="Edges"
      rows=${triples}
      empty="No edges."
      columns=${[
        { label: 'Subject', render: (t) => names.get(t.subject) || t.subject },
        { key: 'predicate', label: 'Predicate' },
        { label: 'Object', render: (t) => names.get(t.object) || t.object },
        { label: 'Weight', render: (t) => String(t.weight) },
      ]}
    />
    <h3>Related documents</h3>
    ${
      docs.length
        ? html`<ul class="related-docs">
            ${docs.map((d) => html`<li key=${d}><${Link} href=${docsPath + encodeURIComponent(d)}>${d}<//></li>`)}
          </ul>`
        : html`<p class="muted">No documents name or mention it.</p>`
    }
    ${
      entity.properties && Object.keys(entity.properties).length
        ? html`<details>
            <summary>Properties</summary>
            <${Json} value=${entity.properties} label="Properties" />
          </details>`
        : null
    }
  </section>`;
}

export default function KnowledgeGraph() {
  const loc = useLocation();
  const indexes = useResource(() => request(urlFor('search', '/v1/indexes')), []);
  const [picked, setPicked] = useState(loc.query.get('index') || '');
  const [query, setQuery] = useState('');
  const [hops, setHops] = useState('1');
  const [answer, setAnswer] = useState(null);
  const [error, setError] = useState(null);
  const [selected, setSelected] = useState(null);
  const names = indexes.data ? indexes.data.indexes.map((i) => i.name) : [];
  const index = picked || names[0] || '';
  const base = '/v1/indexes/' + encodeURIComponent(index);
  const stats = useResource(() => (index ? request(urlFor('graph', base + '/graph/stats')) : null), [index]);
  const search = async (e) => {
    e.preventDefault();
    setError(null);
    setSelected(null);
    try {
      const result = await request(urlFor('graph', base + '/graph/search'), { method: 'POST', body: { query, maxHops: Number(hops), limit: 50 } });
      setAnswer(result);
      const first = result.entities.find((x) => x.hops === 0);
      if (first) setSelected(first.id);
    } catch (err) {
      setAnswer(null);
      setError(err);
    }
  };
  const s = stats.data && stats.data.stats;
  return html`<${Page} title="Knowledge graph">
    <form class="panel" role="search" onSubmit=${search}>
      <div class="row">
        <${Select} label="Index" value=${index} onChange=${(v) => (setPicked(v), setAnswer(null), setSelected(null))} options=${names} />
        <${Input} label="Entity" value=${query} onInput=${setQuery} required hint="A name or alias; prefixes and small typos resolve too." />
        <${Select} label="Hops" value=${hops} onChange=${setHops} options=${['0', '1', '2', '3']} />
      </div>
      <${Button} kind="primary" type="submit" disabled=${!index || !query.trim()}>Search entities<//>
    </form>
    ${s ? html`<p class="muted">${s.entities} entities, ${s.triples} triples in ${index}.</p>` : null}
    <${ErrorBox} error=${indexes.error || stats.error || error} />
    ${
      answer
        ? html`<${Table}
            caption=${'Entities (' + answer.entities.length + ')'}
            rows=${answer.entities}
            rowKey=${(e) => e.id}
            empty="No entity matches."
            columns=${[
              {
                label: 'Name',
                render: (e) =>
                  html`<button type="button" class="link" aria-pressed=${selected === e.id ? 'true' : 'false'} onClick=${() => setSelected(e.id)}>
                    ${e.name}
                  </button>`,
              },
              { key: 'type', label: 'Type' },
              { label: 'Score', render: (e) => Number(e.score).toFixed(3) },
              { label: 'Hops', render: (e) => String(e.hops) },
            ]}
          />`
        : null
    }
    ${selected ? html`<${EntityView} key=${selected} index=${index} base=${base} id=${selected} onPick=${setSelected} />` : null}
  <//>`;
}
