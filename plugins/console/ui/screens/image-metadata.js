import { html, useState } from '../lib/preact.js';
import { request, urlFor } from '../lib/api.js';
import { Badge, ErrorBox, Loading, Notice, Page, Table } from '../lib/components.js';
import { SuggestionGroups } from './autocomplete.js';

const hexPattern = /^#[0-9a-f]{6}$/i;

/** The colour names the server uses, for when it sends no valid hex (never a value from the server). */
const palette = {
  black: '#000000',
  white: '#ffffff',
  gray: '#808080',
  grey: '#808080',
  silver: '#c0c0c0',
  red: '#d62828',
  maroon: '#800000',
  orange: '#f77f00',
  brown: '#8b4513',
  yellow: '#ffd60a',
  olive: '#808000',
  green: '#2a9d4f',
  lime: '#7fff00',
  teal: '#008080',
  cyan: '#00ffff',
  blue: '#1d4ed8',
  navy: '#000080',
  purple: '#7b2cbf',
  pink: '#ff8fab',
  magenta: '#ff00ff',
  beige: '#f5f5dc',
  gold: '#ffd700',
};

/** A CSS colour for a swatch: the server's hex when it is exactly #rrggbb, else the palette's, else none. */
export function swatchColour(name, hex) {
  if (typeof hex === 'string' && hexPattern.test(hex)) return hex.toLowerCase();
  const known = typeof name === 'string' ? palette[name.toLowerCase()] : undefined;
  return known;
}

export function Swatch({ colour }) {
  const css = swatchColour(colour.name, colour.hex);
  // Set through the CSSOM (Preact's style object), which the CSP's style-src does not govern; the
  // value is a validated #rrggbb or a constant of this file.
  return html`<li class="swatch-item">
    <span class="swatch" aria-hidden="true" style=${css ? { backgroundColor: css } : undefined}></span>
    <span>${colour.name}</span>
    <span class="muted"
      >${colour.hex ? String(colour.hex) : 'no hex'}${colour.share !== undefined ? ' · ' + Math.round(colour.share * 1000) / 10 + '%' : ''}</span
    >
  </li>`;
}

function readBase64(file) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => {
      const url = String(reader.result);
      resolve(url.slice(url.indexOf(',') + 1));
    };
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
}

function Result({ result }) {
  const m = result.metadata;
  const colours = Array.isArray(m.colorShares) && m.colorShares.length ? m.colorShares : (m.colors || []).map((name) => ({ name }));
  const words = m.ocr && Array.isArray(m.ocr.wordDetails) ? m.ocr.wordDetails : [];
  return html`<div class="image-result">
    ${m.image ? html`<p class="muted">${m.image.format} · ${m.image.width} × ${m.image.height} · ${m.image.bytes} bytes</p>` : null}
    ${(result.warnings || []).map((w) => html`<${Notice} kind="warn"><strong>${w.code}</strong> ${w.message}<//>`)}
    <section class="panel" aria-labelledby="ocr-title">
      <h2 id="ocr-title">Text (OCR)</h2>
      ${
        m.ocr
          ? html`<p>Confidence <strong data-testid="ocr-confidence">${Math.round(m.ocr.confidence)}</strong> / 100</p>
              <pre class="json" data-testid="ocr-text">${m.ocr.text}</pre>
              <${Table}
                caption="Words"
                rows=${words}
                empty="No words above the confidence threshold."
                columns=${[
                  { key: 'text', label: 'Word' },
                  { label: 'Confidence', render: (w) => Number(w.confidence).toFixed(1) },
                ]}
              />`
          : html`<p class="muted">No OCR for this image.</p>`
      }
    </section>
    <section class="panel" aria-labelledby="colours-title">
      <h2 id="colours-title">Colours</h2>
      <ul class="swatches">
        ${colours.map((c) => html`<${Swatch} key=${c.name} colour=${c} />`)}
      </ul>
    </section>
    <section class="panel" aria-labelledby="tags-title">
      <h2 id="tags-title">Motifs, tags and keywords</h2>
      <p>Motifs: ${(m.motifs || []).map((t) => html`<${Badge} kind="info">${t}<//> `)}</p>
      <p>Tags: ${(m.tags || []).map((t) => html`<${Badge}>${t}<//> `)}</p>
      <p>Suggested keywords: ${(m.suggestedKeywords || []).map((t) => html`<${Badge} kind="good">${t}<//> `)}</p>
    </section>
    ${m.autocompleteSuggestions && m.autocompleteSuggestions.length ? html`<${SuggestionGroups} suggestions=${m.autocompleteSuggestions} />` : null}
    ${result.timings ? html`<p class="muted">Took ${Math.round(result.timings.total)} ms.</p>` : null}
  </div>`;
}

export default function ImageMetadata() {
  const [file, setFile] = useState(null);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState(null);
  const [error, setError] = useState(null);
  const [over, setOver] = useState(false);
  const analyse = async (chosen) => {
    if (!chosen) return;
    setFile(chosen);
    setBusy(true);
    setResult(null);
    setError(null);
    try {
      const bufferBase64 = await readBase64(chosen);
      setResult(await request(urlFor('search', '/v1/tools/image-metadata'), { method: 'POST', body: { bufferBase64 } }));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const drop = (e) => {
    e.preventDefault();
    setOver(false);
    analyse(e.dataTransfer && e.dataTransfer.files[0]);
  };
  return html`<${Page} title="Image metadata">
    <div
      class=${'panel dropzone' + (over ? ' dropzone-over' : '')}
      onDragOver=${(e) => (e.preventDefault(), setOver(true))}
      onDragLeave=${() => setOver(false)}
      onDrop=${drop}
    >
      <label for="image-file">Choose an image (PNG, JPEG, GIF or BMP), or drop one here</label>
      <input id="image-file" type="file" accept="image/png,image/jpeg,image/gif,image/bmp" onChange=${(e) => analyse(e.currentTarget.files[0])} />
      <small class="hint">Analysed by the search service: text (OCR), colours and motifs, offline.</small>
    </div>
    ${file ? html`<p class="muted">${file.name}</p>` : null} ${busy ? html`<${Loading} what="Analysing" />` : null}
    <${ErrorBox} error=${error} />
    ${result ? html`<${Result} result=${result} />` : null}
  <//>`;
}
