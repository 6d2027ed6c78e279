// The component foundation of Tessera's browser UIs (the control plane now; the workflow hub UI
// and the agent console reuse it). Every value from a server is rendered as text through Preact;
// nothing here sets innerHTML. See docs/console.md, "Component foundation".
import { html, useEffect, useRef, useState, useCallback } from './preact.js';

let ids = 0;
/** A stable id for label/input pairs. */
export function useId(prefix = 'f') {
  const ref = useRef(null);
  if (ref.current === null) ref.current = `${prefix}-${++ids}`;
  return ref.current;
}

/** Runs `load` when `deps` change; `{data, error, loading, reload}`. */
export function useResource(load, deps = []) {
  const [state, setState] = useState({ data: undefined, error: undefined, loading: true });
  const seq = useRef(0);
  const reload = useCallback(() => {
    const mine = ++seq.current;
    setState((s) => ({ ...s, loading: true }));
    Promise.resolve()
      .then(load)
      .then(
        (data) => mine === seq.current && setState({ data, error: undefined, loading: false }),
        (error) => mine === seq.current && setState({ data: undefined, error, loading: false }),
      );
  }, deps);
  useEffect(reload, [reload]);
  return { ...state, reload };
}

/** Calls `fn` every `ms` while mounted. */
export function useInterval(fn, ms) {
  const saved = useRef(fn);
  saved.current = fn;
  useEffect(() => {
    const t = setInterval(() => saved.current(), ms);
    return () => clearInterval(t);
  }, [ms]);
}

/** Follows a Server-Sent Events URL; `onEvent(type, data)` for each event, closed on unmount or when `url` is null. */
export function useEventSource(url, types, onEvent) {
  const saved = useRef(onEvent);
  saved.current = onEvent;
  useEffect(() => {
    if (!url) return undefined;
    const source = new EventSource(url);
    for (const type of types) {
      const h = (e) => {
        let data;
        try {
          data = JSON.parse(e.data);
        } catch {
          data = e.data;
        }
        saved.current(type, data, source);
      };
      source.addEventListener(type, h);
    }
    return () => source.close();
  }, [url]);
}

export function Page({ title, actions, children }) {
  return html`<section class="page" aria-labelledby="page-title">
    <header class="page-head">
      <h1 id="page-title" tabindex="-1">${title}</h1>
      ${actions ? html`<div class="actions">${actions}</div>` : null}
    </header>
    ${children}
  </section>`;
}

export function Button({ kind = 'secondary', type = 'button', ...props }) {
  return html`<button type=${type} class=${'btn btn-' + kind} ...${props} />`;
}

/** A labelled control; `error` is announced and linked with aria-describedby. */
export function Field({ label, error, hint, children, id }) {
  const auto = useId();
  const fid = id || auto;
  const described = [error ? fid + '-err' : null, hint ? fid + '-hint' : null].filter(Boolean).join(' ') || undefined;
  const control = typeof children === 'function' ? children({ id: fid, 'aria-describedby': described, 'aria-invalid': error ? 'true' : undefined }) : children;
  return html`<div class=${'field' + (error ? ' field-error' : '')}>
    <label for=${fid}>${label}</label>
    ${control} ${hint ? html`<small id=${fid + '-hint'} class="hint">${hint}</small>` : null}
    ${error ? html`<small id=${fid + '-err'} class="error-text" role="alert">${error}</small>` : null}
  </div>`;
}

export function Input({ label, value, onInput, error, hint, type = 'text', ...rest }) {
  return html`<${Field} label=${label} error=${error} hint=${hint}>
    ${(a) => html`<input type=${type} value=${value} onInput=${(e) => onInput(e.currentTarget.value)} ...${a} ...${rest} />`}
  <//>`;
}

export function Select({ label, value, onChange, options, error, ...rest }) {
  return html`<${Field} label=${label} error=${error}>
    ${(a) =>
      html`<select value=${value} onChange=${(e) => onChange(e.currentTarget.value)} ...${a} ...${rest}>
        ${options.map((o) => (typeof o === 'string' ? html`<option value=${o}>${o}</option>` : html`<option value=${o.value}>${o.label}</option>`))}
      </select>`}
  <//>`;
}

export function TextArea({ label, value, onInput, error, hint, rows = 8, ...rest }) {
  return html`<${Field} label=${label} error=${error} hint=${hint}>
    ${(a) => html`<textarea rows=${rows} spellcheck="false" value=${value} onInput=${(e) => onInput(e.currentTarget.value)} ...${a} ...${rest}></textarea>`}
  <//>`;
}

export function Checkbox({ label, checked, onChange, ...rest }) {
  const id = useId('c');
  return html`<div class="check">
    <input id=${id} type="checkbox" checked=${checked} onChange=${(e) => onChange(e.currentTarget.checked)} ...${rest} />
    <label for=${id}>${label}</label>
  </div>`;
}

/** An API error as the server said it: code, message, and each field issue. */
export function ErrorBox({ error }) {
  if (!error) return null;
  const issues = error.details && Array.isArray(error.details.issues) ? error.details.issues : [];
  return html`<div class="alert alert-error" role="alert">
    <strong>${error.code || 'error'}</strong> ${error.message}
    ${
      issues.length
        ? html`<ul>
            ${issues.map((i) => html`<li><code>${i.path}</code> ${i.message}</li>`)}
          </ul>`
        : null
    }
  </div>`;
}

export function Notice({ kind = 'info', children }) {
  return html`<div class=${'alert alert-' + kind} role="status">${children}</div>`;
}

export function Loading({ what = 'Loading' }) {
  return html`<p class="muted" role="status">${what}…</p>`;
}

/** A table from rows and column specs `{key, label, render?}`. */
export function Table({ caption, columns, rows, empty = 'Nothing yet.', rowKey = (r, i) => i }) {
  if (!rows || rows.length === 0) return html`<p class="muted">${empty}</p>`;
  return html`<div class="table-wrap">
    <table>
      ${
        caption
          ? html`<caption>
              ${caption}
            </caption>`
          : null
      }
      <thead>
        <tr>
          ${columns.map((c) => html`<th scope="col">${c.label}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${rows.map(
          (r, i) =>
            html`<tr key=${rowKey(r, i)}>
              ${columns.map((c) => html`<td>${c.render ? c.render(r) : String(r[c.key] ?? '')}</td>`)}
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

export function Badge({ kind = 'neutral', children }) {
  return html`<span class=${'badge badge-' + kind}>${children}</span>`;
}

/** A modal dialog (native <dialog>: focus trapped, Escape closes). */
export function Dialog({ open, title, onClose, children }) {
  const ref = useRef(null);
  const id = useId('d');
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  return html`<dialog ref=${ref} aria-labelledby=${id} onClose=${onClose} onCancel=${onClose}>
    ${
      open
        ? html`<h2 id=${id}>${title}</h2>
            ${children}`
        : null
    }
  </dialog>`;
}

/** Destructive confirmation: the action is enabled once the exact name is typed. */
export function ConfirmByName({ open, name, what, onConfirm, onClose, busy, error }) {
  const [typed, setTyped] = useState('');
  useEffect(() => setTyped(''), [open]);
  return html`<${Dialog} open=${open} title=${'Delete ' + what + ' ' + name} onClose=${onClose}>
    <p>This cannot be undone. Type <code>${name}</code> to confirm.</p>
    <${Input} label=${'Name of the ' + what} value=${typed} onInput=${setTyped} autocomplete="off" />
    <${ErrorBox} error=${error} />
    <div class="actions">
      <${Button} onClick=${onClose}>Cancel<//>
      <${Button} kind="danger" disabled=${typed !== name || busy} onClick=${onConfirm}>Delete<//>
    </div>
  <//>`;
}

/** Copies `text` to the clipboard, with a spoken confirmation. */
export function CopyButton({ text, label = 'Copy' }) {
  const [done, setDone] = useState(false);
  return html`<${Button}
      onClick=${async () => {
        try {
          await navigator.clipboard.writeText(text);
          setDone(true);
          setTimeout(() => setDone(false), 1500);
        } catch {
          setDone(false);
        }
      }}
      >${done ? 'Copied' : label}<//
    ><span class="sr-only" aria-live="polite">${done ? 'Copied to the clipboard' : ''}</span>`;
}

export function Json({ value, label }) {
  return html`<pre class="json" tabindex="0" aria-label=${label || 'JSON'}>${JSON.stringify(value, null, 2)}</pre>`;
}

/** A small line chart of the last values (an SVG sparkline with its latest value as text). */
export function Spark({ label, values, unit = '', format = (v) => v.toFixed(1) }) {
  const w = 160;
  const h = 36;
  const max = Math.max(1e-9, ...values);
  // One sample is drawn as a level line, so a chart is never blank once a value is known.
  const drawn = values.length === 1 ? [values[0], values[0]] : values;
  const points = drawn.map((v, i) => `${(i / Math.max(1, drawn.length - 1)) * w},${h - (v / max) * (h - 2) - 1}`).join(' ');
  const last = values.length ? values[values.length - 1] : undefined;
  return html`<figure class="spark">
    <figcaption>${label}: <strong>${last === undefined ? '–' : format(last) + unit}</strong></figcaption>
    <svg width=${w} height=${h} viewBox=${`0 0 ${w} ${h}`} role="img" aria-label=${`${label}, last ${values.length} samples`}>
      <polyline fill="none" stroke="currentColor" stroke-width="1.5" points=${points} />
    </svg>
  </figure>`;
}

const entities = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", '#39': "'" };
function decode(text) {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+|#39);/gi, (m, e) => {
    if (e[0] === '#') {
      const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code < 0x110000 ? String.fromCodePoint(code) : m;
    }
    return entities[e.toLowerCase()] ?? m;
  });
}

/**
 * A highlight fragment (server HTML with `<mark>` around matches) rendered with `<mark>` as the
 * only element: the text between the tags is decoded and rendered as text, so any other markup
 * shows as the characters it is made of.
 */
export function Highlight({ fragment }) {
  const parts = [];
  let marked = false;
  for (const piece of String(fragment).split(/(<mark>|<\/mark>)/)) {
    if (piece === '<mark>') marked = true;
    else if (piece === '</mark>') marked = false;
    else if (piece) parts.push(marked ? html`<mark>${decode(piece)}</mark>` : decode(piece));
  }
  return html`<span class="fragment">${parts}</span>`;
}

export function formatBytes(n) {
  if (n === undefined || n === null) return '–';
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return `${n.toFixed(i ? 1 : 0)} ${units[i]}`;
}

export function formatDuration(ms) {
  const s = Math.floor(ms / 1000);
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  return d ? `${d}d ${h}h` : h ? `${h}h ${m}m` : m ? `${m}m ${s % 60}s` : `${s}s`;
}

export function formatTime(iso) {
  return iso ? new Date(iso).toLocaleString() : '–';
}
