import { html, useMemo, useState } from '../lib/preact.js';
import { request, urlFor } from '../lib/api.js';
import { Button, Checkbox, ErrorBox, Input, Loading, Page, Select, Table, formatBytes, formatTime, useResource } from '../lib/components.js';
import { Link, navigate } from '../lib/router.js';
import { MappingEditor, mappingIssues, rowsToMappings, serverIssuesByRow } from './mapping-editor.js';

const namePattern = /^[a-z0-9][a-z0-9_-]{0,63}$/;

function CreateIndex({ onCreated }) {
  const [name, setName] = useState('');
  const [rows, setRows] = useState([{ field: 'title', type: 'text', analyzer: 'english', index: true }]);
  const [operator, setOperator] = useState('OR');
  const [dims, setDims] = useState('');
  const [metric, setMetric] = useState('cosine');
  const [autoEmbed, setAutoEmbed] = useState(false);
  const [dynamic, setDynamic] = useState(false);
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const clientIssues = useMemo(() => mappingIssues(rows), [rows]);
  const nameIssue = name && !namePattern.test(name) ? 'Lowercase letters, digits, - and _, starting with a letter or digit; at most 64.' : undefined;
  const dimsIssue = dims && !(Number.isInteger(Number(dims)) && Number(dims) >= 1 && Number(dims) <= 4096) ? 'A whole number from 1 to 4096.' : undefined;
  const issues = { ...serverIssuesByRow(error, rows), ...clientIssues };
  const invalid = !name || nameIssue || dimsIssue || Object.keys(clientIssues).length > 0 || (autoEmbed && !dims);
  const body = () => {
    const settings = { defaultOperator: operator, dynamic };
    if (dims) Object.assign(settings, { vectorDimensions: Number(dims), vectorMetric: metric, autoEmbed });
    return { name, mappings: rowsToMappings(rows), settings };
  };
  const submit = async (e) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await request(urlFor('search', '/v1/indexes'), { method: 'POST', body: body() });
      onCreated(name);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return html`<form class="panel" onSubmit=${submit} aria-labelledby="create-index">
    <h2 id="create-index">Create an index</h2>
    <${Input}
      label="Index name"
      value=${name}
      onInput=${setName}
      error=${nameIssue || (error && error.code === 'invalid_index_name' ? error.message : undefined)}
      required
    />
    <${MappingEditor} rows=${rows} onChange=${setRows} issues=${issues} />
    <fieldset>
      <legend>Settings</legend>
      <div class="row">
        <${Select} label="Default operator" value=${operator} onChange=${setOperator} options=${['OR', 'AND']} />
        <${Input} label="Vector dimensions" type="number" value=${dims} onInput=${setDims} error=${dimsIssue} hint="Enables semantic and hybrid search." />
        <${Select} label="Vector metric" value=${metric} onChange=${setMetric} options=${['cosine', 'dot_product', 'euclidean']} disabled=${!dims} />
      </div>
      <${Checkbox} label="Embed documents and queries (autoEmbed, built-in embedder)" checked=${autoEmbed} onChange=${setAutoEmbed} />
      ${autoEmbed && !dims ? html`<small class="error-text" role="alert">autoEmbed needs vector dimensions.</small>` : null}
      <${Checkbox} label="Index unmapped fields (dynamic mapping)" checked=${dynamic} onChange=${setDynamic} />
    </fieldset>
    <${ErrorBox} error=${error} />
    <${Button} kind="primary" type="submit" disabled=${busy || invalid}>Create index<//>
  </form>`;
}

export default function Indexes() {
  const list = useResource(() => request(urlFor('search', '/v1/indexes')), []);
  const [creating, setCreating] = useState(false);
  return html`<${Page}
    title="Indexes"
    actions=${html`<${Button} kind="primary" onClick=${() => setCreating(!creating)} aria-expanded=${creating}>New index<//>`}
  >
    ${creating ? html`<${CreateIndex} onCreated=${(name) => navigate('/indexes/' + encodeURIComponent(name))} />` : null}
    <${ErrorBox} error=${list.error} />
    ${
      list.loading && !list.data
        ? html`<${Loading} />`
        : list.data
          ? html`<${Table}
              caption="Indexes of this tenant"
              rows=${list.data.indexes}
              rowKey=${(i) => i.name}
              empty="No index yet: create one."
              columns=${[
                { label: 'Name', render: (i) => html`<${Link} href=${'/indexes/' + encodeURIComponent(i.name)}>${i.name}<//>` },
                { label: 'Documents', render: (i) => String(i.docCount) },
                {
                  label: 'Size',
                  render: (i) => html`<span title=${i.stats.bytes === undefined ? '' : i.stats.bytes + ' bytes'}>${formatBytes(i.stats.bytes)}</span>`,
                },
                { label: 'Segments', render: (i) => String(i.stats.segments) },
                { label: 'Deleted (unmerged)', render: (i) => String(i.stats.deletedDocs) },
                { label: 'Fields', render: (i) => String(i.stats.fields) },
                {
                  label: 'Vectors',
                  render: (i) => (i.settings.vectorDimensions ? `${i.settings.vectorDimensions}d ${i.settings.vectorMetric || 'cosine'}` : '–'),
                },
                { label: 'Updated', render: (i) => formatTime(i.updatedAt) },
              ]}
            />`
          : null
    }
  <//>`;
}
