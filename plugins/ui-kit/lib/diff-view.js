// A unified diff (git's or diff -u's) drawn side by side: the old file on the left, the new on the
// right, removed and added lines paired row by row, with notes (review findings) placed under the
// new line they are about. Every line of the diff is rendered as text: a diff holding markup shows
// the characters it is made of.
import { html } from './preact.js';
import { useId } from './components.js';

/** `a/x` and `b/x` become `x`; `/dev/null` stays null. */
function cleanPath(raw) {
  if (raw === undefined) return null;
  const p = raw.split('\t')[0].trim();
  if (p === '/dev/null') return null;
  return p.replace(/^[ab]\//, '');
}

/**
 * The files of a unified diff: `[{oldPath, newPath, binary, hunks: [{header, rows}]}]`, a row being
 * `{kind: 'context'|'change', left: {n, text, kind}|null, right: {n, text, kind}|null}`.
 */
export function parseUnifiedDiff(text) {
  const files = [];
  let file = null;
  let hunk = null;
  let oldN = 0;
  let newN = 0;
  // Lines of the current hunk still to come, from its header's counts: a hunk's body is read by
  // count, so a removed line that starts with "-- " is not taken for a file header.
  let oldLeft = 0;
  let newLeft = 0;
  let dels = [];
  let adds = [];
  const flush = () => {
    if (!hunk) return;
    const n = Math.max(dels.length, adds.length);
    for (let i = 0; i < n; i++) hunk.rows.push({ kind: 'change', left: dels[i] || null, right: adds[i] || null });
    dels = [];
    adds = [];
  };
  const startFile = (oldPath, newPath) => {
    flush();
    hunk = null;
    file = { oldPath, newPath, binary: false, hunks: [] };
    files.push(file);
  };
  for (const line of String(text).split('\n')) {
    if (hunk && (oldLeft > 0 || newLeft > 0)) {
      const mark = line[0];
      const body = line.slice(1);
      if (mark === '-') {
        dels.push({ n: oldN++, text: body, kind: 'del' });
        oldLeft--;
      } else if (mark === '+') {
        adds.push({ n: newN++, text: body, kind: 'add' });
        newLeft--;
      } else if (mark === ' ' || line === '') {
        flush();
        hunk.rows.push({ kind: 'context', left: { n: oldN++, text: body, kind: 'ctx' }, right: { n: newN++, text: body, kind: 'ctx' } });
        oldLeft--;
        newLeft--;
      }
      // "\\ No newline at end of file" belongs to neither side.
      continue;
    }
    flush();
    if (line.startsWith('diff --git ')) {
      const m = /^diff --git a\/(.*) b\/(.*)$/.exec(line);
      startFile(m ? m[1] : null, m ? m[2] : null);
    } else if (line.startsWith('--- ')) {
      if (!file || file.hunks.length > 0) startFile(cleanPath(line.slice(4)), null);
      else file.oldPath = cleanPath(line.slice(4));
    } else if (line.startsWith('+++ ') && file) {
      file.newPath = cleanPath(line.slice(4));
    } else if (line.startsWith('@@')) {
      const m = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
      if (!file) startFile(null, null);
      hunk = { header: line, rows: [] };
      file.hunks.push(hunk);
      oldN = m ? Number(m[1]) : 0;
      newN = m ? Number(m[3]) : 0;
      oldLeft = m ? (m[2] === undefined ? 1 : Number(m[2])) : 0;
      newLeft = m ? (m[4] === undefined ? 1 : Number(m[4])) : 0;
    } else if (line.startsWith('Binary files ') && file) {
      file.binary = true;
    } else if (line.startsWith('deleted file mode') && file) {
      file.newPath = null;
    } else if (line.startsWith('new file mode') && file) {
      file.oldPath = null;
    }
  }
  flush();
  return files;
}

const severityKind = { high: 'bad', medium: 'warn', low: 'info' };
const sideLabel = { del: 'removed', add: 'added', ctx: '' };

function Note({ note }) {
  return html`<div class="diff-note" role="note">
    <span class=${'badge badge-' + (severityKind[note.severity] || 'neutral')}>${note.severity || 'note'}</span>
    ${note.rule ? html` <code>${note.rule}</code>` : null} ${note.message}
  </div>`;
}

function Cell({ side }) {
  if (!side)
    return html`<td class="diff-n"></td>
      <td class="diff-empty"></td>`;
  return html`<td class="diff-n">${side.n}</td>
    <td class=${'diff-text diff-' + side.kind}>
      ${sideLabel[side.kind] ? html`<span class="sr-only">${sideLabel[side.kind]}: </span>` : null}<span class="diff-code">${side.text}</span>
    </td>`;
}

/** One file of the diff as a table; `notes` are `{file, line, severity, rule, message}`. */
function DiffFile({ file, notes, index, prefix }) {
  const name = file.newPath || file.oldPath || 'unnamed file';
  const status =
    file.oldPath === null ? 'added' : file.newPath === null ? 'deleted' : file.oldPath !== file.newPath ? 'renamed from ' + file.oldPath : 'modified';
  const mine = notes.filter((n) => n.file === name || (file.oldPath && n.file === file.oldPath));
  const byLine = new Map();
  for (const n of mine) if (n.line !== null && n.line !== undefined) byLine.set(n.line, [...(byLine.get(n.line) || []), n]);
  const placed = new Set();
  const shown = new Set();
  for (const h of file.hunks) for (const r of h.rows) if (r.right) shown.add(r.right.n);
  const unplaced = mine.filter((n) => n.line === null || n.line === undefined || !shown.has(n.line));
  return html`<section class="diff-file" aria-labelledby=${prefix + '-' + index}>
    <h3 id=${prefix + '-' + index}><code>${name}</code> <span class="muted">${status}</span></h3>
    ${unplaced.map((n) => html`<${Note} note=${n} />`)} ${file.binary ? html`<p class="muted">Binary file: not shown.</p>` : null}
    <div class="table-wrap diff-wrap" tabindex="0" role="group" aria-label=${'Changes of ' + name}>
      <table class="diff">
        <caption class="sr-only">
          ${name}: old version on the left, new version on the right
        </caption>
        <thead>
          <tr>
            <th scope="col" class="diff-n">Old</th>
            <th scope="col">Before</th>
            <th scope="col" class="diff-n">New</th>
            <th scope="col">After</th>
          </tr>
        </thead>
        ${file.hunks.map(
          (h) =>
            html`<tbody>
              <tr class="diff-hunk">
                <td colspan="4"><code>${h.header}</code></td>
              </tr>
              ${h.rows.map((r) => {
                const here = r.right && !placed.has(r.right.n) ? byLine.get(r.right.n) : undefined;
                if (here) placed.add(r.right.n);
                return html`<tr class=${'diff-row diff-' + r.kind}>
                    <${Cell} side=${r.left} /><${Cell} side=${r.right} />
                  </tr>
                  ${
                    here
                      ? html`<tr class="diff-notes">
                          <td colspan="4">${here.map((n) => html`<${Note} note=${n} />`)}</td>
                        </tr>`
                      : null
                  }`;
              })}
            </tbody>`,
        )}
      </table>
    </div>
  </section>`;
}

/** A whole diff side by side; `notes` without a file are shown above it. */
export function DiffView({ diff, notes = [] }) {
  const prefix = useId('diff');
  const files = parseUnifiedDiff(diff || '');
  const general = notes.filter((n) => !n.file);
  return html`<div class="diff-view">
    ${general.map((n) => html`<${Note} note=${n} />`)}
    ${files.length === 0 ? html`<p class="muted">No file changes in this diff.</p>` : files.map((f, i) => html`<${DiffFile} file=${f} notes=${notes} index=${i} prefix=${prefix} />`)}
  </div>`;
}
