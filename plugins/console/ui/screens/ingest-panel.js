import { html, useState } from '../lib/preact.js';
import { request } from '../lib/api.js';
import { Button, ErrorBox, Field, Notice, Select, Table, TextArea } from '../lib/components.js';

const types = { json: 'application/json', ndjson: 'application/x-ndjson', csv: 'text/csv' };
const accepted = '.json,.ndjson,.jsonl,.csv,.png,.jpg,.jpeg,.gif,.bmp,image/png,image/jpeg,image/gif,image/bmp';

/** Upload with progress (fetch has no upload progress): multipart to POST /v1/ingest/{index}. */
function upload(url, files, csrf, onProgress) {
  return new Promise((resolve, reject) => {
    const form = new FormData();
    for (const f of files) form.append('file', f, f.name);
    const xhr = new XMLHttpRequest();
    xhr.open('POST', url);
    xhr.setRequestHeader('accept', 'application/json');
    if (csrf) xhr.setRequestHeader('x-csrf-token', csrf);
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
    xhr.onload = () => {
      let body;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        body = { ok: false, error: { code: 'http_' + xhr.status, message: xhr.responseText.slice(0, 300) } };
      }
      if (xhr.status >= 400 || body.ok === false) reject(Object.assign(new Error(body.error.message), body.error, { status: xhr.status }));
      else resolve(body);
    };
    xhr.onerror = () => reject(new Error('The upload failed (network).'));
    xhr.send(form);
  });
}

function Result({ result, onOpen }) {
  if (!result) return null;
  return html`<div>
    <${Notice} kind=${result.failed ? 'warn' : 'success'}>
      ${result.items} items read · ${result.indexed} indexed · ${result.failed} failed · ${result.tookMs} ms
    <//>
    <${Table}
      caption="Files"
      rows=${result.files}
      columns=${[
        { label: 'File', render: (f) => f.name ?? '(body)' },
        { key: 'format', label: 'Format' },
        { label: 'Items', render: (f) => String(f.items) },
        { label: 'Indexed', render: (f) => String(f.indexed) },
        { label: 'Failed', render: (f) => String(f.failed) },
        {
          label: 'Document',
          render: (f) =>
            f.id !== undefined && f.indexed > 0
              ? html`<button type="button" class="link" onClick=${() => onOpen(f.id)} aria-label=${'Open document ' + f.id}>${f.id}</button>`
              : '–',
        },
      ]}
    />
    ${
      result.errors.length
        ? html`<${Table}
            caption="Items that failed"
            rows=${result.errors}
            columns=${[
              { label: 'File', render: (e) => e.file ?? '(body)' },
              { label: 'Item', render: (e) => String(e.item) },
              { label: 'Line', render: (e) => (e.line === undefined ? '–' : String(e.line)) },
              { label: 'Code', render: (e) => html`<code>${e.code}</code>` },
              { key: 'message', label: 'Message' },
            ]}
          />`
        : null
    }
  </div>`;
}

/** Add documents by paste (JSON, NDJSON or CSV) or by files, through the ingestion API. */
export function IngestPanel({ index, csrf, onDone, onOpen }) {
  const [format, setFormat] = useState('ndjson');
  const [text, setText] = useState('');
  const [files, setFiles] = useState([]);
  const [progress, setProgress] = useState(null);
  const [result, setResult] = useState(null);
  const [error, setError] = useState(null);
  const url = '/v1/ingest/' + encodeURIComponent(index);
  const run = async (send) => {
    setError(null);
    setResult(null);
    try {
      setResult(await send());
      onDone();
    } catch (err) {
      setError(err);
    } finally {
      setProgress(null);
    }
  };
  return html`<section class="panel" aria-labelledby="add-docs">
    <h2 id="add-docs">Add documents</h2>
    <div class="row">
      <form
        class="grow"
        onSubmit=${(e) => {
          e.preventDefault();
          run(() => request(url, { method: 'POST', body: text, headers: { 'content-type': types[format] } }));
        }}
      >
        <${Select}
          label="Pasted format"
          value=${format}
          onChange=${setFormat}
          options=${[
            { value: 'ndjson', label: 'NDJSON (one document per line)' },
            { value: 'json', label: 'JSON (an array of documents)' },
            { value: 'csv', label: 'CSV (header row first)' },
          ]}
        />
        <${TextArea} label="Documents" value=${text} onInput=${setText} rows=${6} />
        <${Button} kind="primary" type="submit" disabled=${!text.trim()}>Add pasted documents<//>
      </form>
      <form
        class="grow"
        onSubmit=${(e) => {
          e.preventDefault();
          setProgress(0);
          run(() => upload(url, files, csrf(), setProgress));
        }}
      >
        <${Field}
          label="Files (.json, .ndjson, .jsonl, .csv, or images: .png, .jpg, .gif, .bmp)"
          hint="Each image becomes a document with its text (OCR), colours, motifs and tags; its id is the file name."
        >
          ${(a) => html`<input type="file" multiple accept=${accepted} onChange=${(e) => setFiles([...e.currentTarget.files])} ...${a} />`}
        <//>
        ${progress !== null ? html`<progress max="1" value=${progress} aria-label="Upload progress">${Math.round(progress * 100)}%</progress>` : null}
        ${progress === 1 ? html`<p role="status" class="muted">Uploaded: the server is reading and indexing the files…</p>` : null}
        <${Button} kind="primary" type="submit" disabled=${files.length === 0 || progress !== null}>Upload files<//>
      </form>
    </div>
    <${ErrorBox} error=${error} />
    <${Result} result=${result} onOpen=${onOpen} />
  </section>`;
}
