import { html, useState } from '../lib/preact.js';
import { getCsrfToken, request, urlFor } from '../lib/api.js';
import { Badge, Button, ErrorBox, Input, Json, Loading, Notice, Page, Table, useResource } from '../lib/components.js';
import { Link, useLocation } from '../lib/router.js';
import { IngestPanel } from './ingest-panel.js';
import { VisualView, imageFieldsOf } from './visual-view.js';

const pageSize = 20;

function preview(source) {
  const text = JSON.stringify(source);
  return text.length > 160 ? text.slice(0, 160) + '…' : text;
}

/** Whether the document has a vector and where it comes from: its own `_vector`, the index's embedder, or none. */
export function vectorOf(document, settings) {
  if (Array.isArray(document._vector)) return { present: true, text: `present: stored with the document (${document._vector.length} dimensions)` };
  if (settings && settings.autoEmbed) return { present: true, text: `present: embedded by the index (autoEmbed, ${settings.vectorDimensions} dimensions)` };
  if (settings && settings.vectorDimensions)
    return { present: false, text: `none: the document has no _vector and the index does not embed (${settings.vectorDimensions} dimensions)` };
  return { present: false, text: 'none: the index has no vector settings' };
}

function DocumentView({ index, id, info, onDeleted, onClose }) {
  const settings = info && info.settings;
  const base = '/v1/indexes/' + encodeURIComponent(index);
  const doc = useResource(() => request(urlFor('search', base + '/documents/' + encodeURIComponent(id))), [id]);
  const [error, setError] = useState(null);
  const remove = async () => {
    try {
      await request(urlFor('search', base + '/documents/' + encodeURIComponent(id)), { method: 'DELETE' });
      onDeleted();
    } catch (err) {
      setError(err);
    }
  };
  return html`<section class="panel" aria-labelledby="doc-view">
    <h2 id="doc-view">Document ${id}</h2>
    <${ErrorBox} error=${doc.error || error} />
    ${
      doc.data
        ? html`<p>
              <strong>Vector:</strong>${' '}
              <span data-testid="doc-vector"
                ><${Badge} kind=${vectorOf(doc.data.document, settings).present ? 'good' : 'neutral'}
                  >${vectorOf(doc.data.document, settings).present ? 'yes' : 'no'}<//
                >${' ' + vectorOf(doc.data.document, settings).text}</span
              >
            </p>
            <${VisualView} document=${doc.data.document} imageFields=${imageFieldsOf(info && info.mappings)} />
            <${Json} value=${doc.data.document} label=${'Source of document ' + id} />`
        : html`<${Loading} />`
    }
    <div class="actions">
      <${Button} onClick=${onClose}>Close<//>
      <${Button} kind="danger" onClick=${remove}>Delete document<//>
    </div>
  </section>`;
}

export default function Documents({ params }) {
  const index = params.name;
  const [from, setFrom] = useState(0);
  const [q, setQ] = useState('');
  // `?id=` opens one document (the knowledge graph links its related documents here).
  const [selected, setSelected] = useState(useLocation().query.get('id'));
  const [message, setMessage] = useState(null);
  const info = useResource(() => request(urlFor('search', '/v1/indexes/' + encodeURIComponent(index))), [index]);
  const list = useResource(
    () =>
      request(urlFor('search', '/v1/indexes/' + encodeURIComponent(index) + '/search'), {
        method: 'POST',
        body: { q, from, size: pageSize, highlight: false, ...(q ? {} : { sort: ['id'] }) },
      }),
    [index, from, q],
  );
  return html`<${Page}
    title=${'Documents of ' + index}
    actions=${html`<${Link} class="btn btn-secondary" href=${'/indexes/' + encodeURIComponent(index)}>Index settings<//>`}
  >
    ${message ? html`<${Notice} kind="success">${message}<//>` : null}
    <${IngestPanel} index=${index} csrf=${getCsrfToken} onDone=${() => (list.reload(), info.reload())} onOpen=${setSelected} />
    ${
      selected
        ? html`<${DocumentView}
            key=${selected}
            index=${index}
            id=${selected}
            info=${info.data && info.data.index}
            onClose=${() => setSelected(null)}
            onDeleted=${() => {
              setMessage(`Document ${selected} deleted.`);
              setSelected(null);
              list.reload();
            }}
          />`
        : null
    }
    <form class="row" role="search" onSubmit=${(e) => e.preventDefault()}>
      <${Input} label="Filter by query" hint="Leave empty to list every document." value=${q} onInput=${(v) => (setQ(v), setFrom(0))} />
    </form>
    <${ErrorBox} error=${list.error} />
    ${
      list.data
        ? html`<p role="status">
              ${list.data.total} documents${q ? ' match' : ''}; showing ${list.data.total ? from + 1 : 0}–${Math.min(from + pageSize, list.data.total)}.
            </p>
            <${Table}
              caption="Documents"
              rows=${list.data.hits}
              rowKey=${(h) => h.id}
              empty="No documents."
              columns=${[
                { label: 'Id', render: (h) => html`<button type="button" class="link" onClick=${() => setSelected(h.id)}>${h.id}</button>` },
                { label: 'Source', render: (h) => html`<code class="clip">${preview(h.source)}</code>` },
              ]}
            />
            <div class="actions">
              <${Button} disabled=${from === 0} onClick=${() => setFrom(Math.max(0, from - pageSize))}>Previous page<//>
              <${Button} disabled=${from + pageSize >= list.data.total} onClick=${() => setFrom(from + pageSize)}>Next page<//>
            </div>`
        : html`<${Loading} />`
    }
  <//>`;
}
