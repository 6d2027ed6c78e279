// Bar charts as SVG (no canvas, no inline style: colours are SVG attributes from fixed palettes,
// labels are text nodes). Each chart is a <figure> whose SVG is described for screen readers by
// a caption and a data table beside it, so the numbers are readable without the drawing.
import { html } from './preact.js';

/** Colours that keep 3:1 contrast against white, in series order. */
export const palette = ['#0b57d0', '#146c2e', '#b3261e', '#7a4f01', '#6b3fa0', '#00677d', '#8a4a00', '#4a5360'];

/**
 * Horizontal bars, one per row, each split into segments by series (stacked), or side by side
 * per series when `grouped`. `rows`: `[{label, values: {seriesKey: number}}]`; `series`:
 * `[{key, label, color?}]`.
 */
export function BarChart({ title, rows, series, unit = '', grouped = false, format = (v) => String(v) }) {
  const labelW = 160;
  const barW = 420;
  const barH = 14;
  const gap = 10;
  const perRow = grouped ? series.length * (barH + 2) : barH;
  const total = (r) => series.reduce((n, s) => n + (Number(r.values[s.key]) || 0), 0);
  const max = Math.max(1e-9, ...rows.map((r) => (grouped ? Math.max(...series.map((s) => Number(r.values[s.key]) || 0)) : total(r))));
  const height = rows.length * (perRow + gap) + 24;
  const colour = (s, i) => s.color || palette[i % palette.length];
  const bars = rows.map((r, ri) => {
    const y = ri * (perRow + gap);
    let x = labelW;
    const parts = series.map((s, si) => {
      const v = Number(r.values[s.key]) || 0;
      const w = (v / max) * barW;
      const rect = grouped
        ? html`<rect x=${labelW} y=${y + si * (barH + 2)} width=${Math.max(v > 0 ? 1 : 0, w)} height=${barH} fill=${colour(s, si)}>
              <title>${`${r.label} ${s.label}: ${format(v)}${unit}`}</title>
            </rect>
            ${
              r.values[s.key] === null || r.values[s.key] === undefined
                ? null
                : html`<text x=${labelW + w + 6} y=${y + si * (barH + 2) + 11} font-size="11" fill="currentColor">${s.label} ${format(v)}${unit}</text>`
            }`
        : html`<rect x=${x} y=${y} width=${w} height=${barH} fill=${colour(s, si)}>
            <title>${`${r.label} ${s.label}: ${format(v)}${unit}`}</title>
          </rect>`;
      if (!grouped) x += w;
      return rect;
    });
    return html`<g>
      <text x=${labelW - 6} y=${y + 11} text-anchor="end" font-size="12" fill="currentColor"
        >${r.label.length > 22 ? r.label.slice(0, 21) + '…' : r.label}</text
      >
      ${parts}
      <text x=${labelW + (grouped ? barW : (total(r) / max) * barW) + 6} y=${y + 11} font-size="11" fill="currentColor">
        ${grouped ? '' : format(total(r)) + unit}
      </text>
    </g>`;
  });
  return html`<figure class="chart">
    <figcaption>${title}</figcaption>
    <ul class="legend" aria-hidden="true">
      ${series.map(
        (s, i) =>
          html`<li>
            <svg width="10" height="10"><rect width="10" height="10" fill=${colour(s, i)} /></svg> ${s.label}
          </li>`,
      )}
    </ul>
    <svg width=${labelW + barW + 80} height=${height} preserveAspectRatio="xMinYMin meet" viewBox=${`0 0 ${labelW + barW + 80} ${height}`} aria-hidden="true">
      ${bars}
    </svg>
    <table class="chart-data">
      <caption class="sr-only">
        ${title}
      </caption>
      <thead>
        <tr>
          <th scope="col">Row</th>
          ${series.map((s) => html`<th scope="col">${s.label}${unit ? ` (${unit.trim()})` : ''}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${rows.map(
          (r) =>
            html`<tr>
              <th scope="row">${r.label}</th>
              ${series.map((s) => html`<td>${r.values[s.key] === null || r.values[s.key] === undefined ? '–' : format(Number(r.values[s.key]))}</td>`)}
            </tr>`,
        )}
      </tbody>
    </table>
  </figure>`;
}
