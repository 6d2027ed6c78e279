import { html } from '../lib/preact.js';
import { Badge, Notice, Table, formatBytes, formatTime } from '../lib/components.js';
import { Swatch } from './image-metadata.js';

const list = (v) => (Array.isArray(v) ? v.filter((x) => typeof x === 'string') : []);

/** The image fields of an index's mappings (`{type: "keyword", image: true}`). */
export function imageFieldsOf(mappings) {
  return Object.entries(mappings || {})
    .filter(([, m]) => m.image === true)
    .map(([f]) => f);
}

/**
 * A document's image metadata: `_visual`, as visual extraction (image fields) or image ingestion
 * (`POST /v1/ingest/{index}` with an image) writes it, and the ingested file's `file` description.
 * Every value is rendered as text; a colour is painted only from a validated hex or a known name.
 */
export function VisualView({ document, imageFields }) {
  const v = document._visual;
  const pending = !v && imageFields.some((f) => document[f] !== undefined && document[f] !== '');
  if (!v || typeof v !== 'object') {
    return pending
      ? html`<section class="panel" aria-labelledby="doc-visual">
          <h3 id="doc-visual">Image metadata</h3>
          <p class="muted">
            Not extracted yet: the index reads this document's images in the background after each write (its statistics show what is pending).
          </p>
        </section>`
      : null;
  }
  const images = Array.isArray(v.images) ? v.images : [];
  const errors = Array.isArray(v.errors) ? v.errors : [];
  const file = document.file && typeof document.file === 'object' && typeof document.file.sha256 === 'string' ? document.file : null;
  // Colours with their shares come per image; the document's list of names stands in when there are none.
  const colours = images.flatMap((i) => (Array.isArray(i.colors) ? i.colors : []));
  const swatches = colours.length ? colours : list(v.colors).map((name) => ({ name }));
  return html`<section class="panel" aria-labelledby="doc-visual">
    <h3 id="doc-visual">Image metadata</h3>
    ${file ? html`<p data-testid="doc-file">${file.name ? file.name + ' · ' : ''}${file.type} · ${file.width} × ${file.height} · ${formatBytes(file.bytes)}</p>` : null}
    ${errors.map((e) => html`<${Notice} kind="warn"><strong>${String(e.code)}</strong> ${String(e.field)}: ${String(e.message)}<//>`)}
    <h4>Text (OCR)</h4>
    ${v.text ? html`<pre class="json" data-testid="doc-ocr">${String(v.text)}</pre>` : html`<p class="muted">No text read.</p>`}
    <h4>Colours</h4>
    ${
      swatches.length
        ? html`<ul class="swatches">
            ${swatches.map((c, i) => html`<${Swatch} key=${i} colour=${c} />`)}
          </ul>`
        : html`<p class="muted">None.</p>`
    }
    <p>Motifs: ${list(v.motifs).map((t) => html`<${Badge} kind="info">${t}<//> `)}</p>
    <p>Tags: ${list(v.tags).map((t) => html`<${Badge}>${t}<//> `)}</p>
    <p>Keywords: ${list(v.keywords).map((t) => html`<${Badge} kind="good">${t}<//> `)}</p>
    <${Table}
      caption="Images read"
      rows=${images}
      empty="No image could be read."
      columns=${[
        { label: 'Field', render: (i) => String(i.field) },
        { label: 'Format', render: (i) => String(i.format) },
        { label: 'Pixels', render: (i) => `${i.width} × ${i.height}` },
        { label: 'OCR confidence', render: (i) => (typeof i.ocrConfidence === 'number' ? String(Math.round(i.ocrConfidence)) : '–') },
        { label: 'SHA-256', render: (i) => html`<code title=${String(i.sha256)}>${String(i.sha256).slice(0, 12)}…</code>` },
      ]}
    />
    ${v.extractedAt ? html`<p class="muted">Extracted ${formatTime(v.extractedAt)}.</p>` : null}
  </section>`;
}
