// A JSON text editor whose problems sit on their lines: a gutter of line numbers marks each line
// that holds an error, and the list below names line, JSON path and message; choosing an entry
// selects the offending value in the text.
import { html, useEffect, useRef } from '../lib/preact.js';
import { useId } from '../lib/components.js';

/** `problems`: `[{line, start, end, path, message}]`; `focusAt`: `{start, end, line}` to select (a new object each time). */
export function JsonEditor({ label, value, onInput, problems = [], rows = 24, readOnly = false, focusAt }) {
  const id = useId('json');
  const area = useRef(null);
  const gutter = useRef(null);
  const lines = value.split('\n').length;
  const byLine = new Map();
  for (const p of problems) byLine.set(p.line, [...(byLine.get(p.line) || []), p]);
  const select = (p) => {
    const t = area.current;
    if (!t) return;
    t.focus();
    t.setSelectionRange(p.start, Math.max(p.start, p.end));
    // Scroll the selection into view: lines above it times the line height.
    const lh = parseFloat(getComputedStyle(t).lineHeight) || 18;
    t.scrollTop = Math.max(0, (p.line - 3) * lh);
  };
  useEffect(() => {
    if (focusAt) select(focusAt);
  }, [focusAt]);
  return html`<div class=${'field json-field' + (problems.length ? ' field-error' : '')}>
    <label for=${id}>${label}</label>
    <div class="json-editor">
      <ol class="json-gutter" ref=${gutter} aria-hidden="true">
        ${Array.from({ length: lines }, (_, k) => {
          const here = byLine.get(k + 1);
          return html`<li class=${here ? 'json-gutter-bad' : ''} title=${here ? here.map((p) => `${p.path}: ${p.message}`).join('\n') : undefined}>
            ${here ? '⚠ ' : ''}${k + 1}
          </li>`;
        })}
      </ol>
      <textarea
        id=${id}
        ref=${area}
        rows=${rows}
        spellcheck="false"
        autocomplete="off"
        wrap="off"
        readonly=${readOnly}
        value=${value}
        aria-invalid=${problems.length ? 'true' : undefined}
        aria-describedby=${problems.length ? id + '-problems' : undefined}
        onInput=${(e) => onInput(e.currentTarget.value)}
        onScroll=${(e) => {
          if (gutter.current) gutter.current.scrollTop = e.currentTarget.scrollTop;
        }}
      ></textarea>
    </div>
    ${
      problems.length
        ? html`<div id=${id + '-problems'} role="alert">
            <ul class="json-problems" aria-label="Validation errors">
              ${problems.map(
                (p) =>
                  html`<li data-path=${p.path}>
                    <button type="button" class="link" onClick=${() => select(p)}>line ${p.line}</button>${': '}<code>${p.path}</code>${' '}${p.message}
                  </li>`,
              )}
            </ul>
          </div>`
        : null
    }
  </div>`;
}
