// An execution's step timeline as a waterfall: one row per step, except that the steps of each
// fanOut branch share a row, so branches that ran in parallel show as parallel rows. Each bar is
// the queue wait (light) then the run (solid), on one time axis from the execution's start.
import { html } from '../lib/preact.js';
import { ms } from './common.js';

/** Step id -> `{lane, depth}` from the spec: `lane` names the fanOut branch a step runs in. */
export function stepPlaces(spec) {
  const out = new Map();
  const walk = (steps, lane, depth) => {
    for (const s of Array.isArray(steps) ? steps : []) {
      if (!s || typeof s !== 'object') continue;
      out.set(s.id, { lane, depth });
      if (s.kind === 'when') walk(s.steps, lane, depth + 1);
      if (s.kind === 'fanOut') {
        (s.branches || []).forEach((b, i) => walk(b, `${s.id} › branch ${i}`, depth + 1));
        if (s.join) out.set(s.join.id, { lane, depth: depth + 1 });
      }
      if (s.kind === 'branch' && s.config) {
        for (const c of s.config.cases || []) walk(c && c.steps, lane, depth + 1);
        walk(s.config.default, lane, depth + 1);
      }
    }
  };
  walk(spec && spec.steps, null, 0);
  return out;
}

/**
 * What each step received: the working object passed along a sequence (docs/workflow.md), so a
 * step's input is the output of the step before it in its sequence, and the first step of a
 * nested sequence receives its parent step's input.
 */
export function stepInputs(spec, trace) {
  const byId = new Map(trace.steps.map((s) => [s.id, s]));
  const inputs = new Map();
  const walk = (steps, input) => {
    let current = input;
    for (const s of Array.isArray(steps) ? steps : []) {
      if (!s || typeof s !== 'object') continue;
      const rec = byId.get(s.id);
      if (!rec) continue;
      inputs.set(s.id, current);
      if (s.kind === 'when') walk(s.steps, current);
      if (s.kind === 'fanOut') {
        for (const b of s.branches || []) walk(b, current);
        if (s.join) inputs.set(s.join.id, '(the branch outputs)');
      }
      if (s.kind === 'branch' && s.config) {
        for (const c of s.config.cases || []) walk(c && c.steps, current);
        walk(s.config.default, current);
      }
      current = rec.output;
    }
  };
  walk(spec && spec.steps, trace.input);
  return inputs;
}

/** The rows: `[{key, label, depth, steps: [{rec, start, queue, duration}]}]`, in start order. */
export function lanesOf(trace, places) {
  const t0 = Date.parse(trace.startedAt);
  const rows = [];
  const byKey = new Map();
  trace.steps.forEach((rec, i) => {
    const place = places.get(rec.id) || { lane: null, depth: rec.parent ? 1 : 0 };
    const key = place.lane || `step ${i}`;
    let row = byKey.get(key);
    if (!row) {
      row = { key, label: place.lane || rec.id, lane: Boolean(place.lane), depth: place.depth, steps: [] };
      byKey.set(key, row);
      rows.push(row);
    }
    row.steps.push({ rec, start: Math.max(0, Date.parse(rec.startedAt) - t0), queue: rec.queueWaitMs || 0, duration: rec.durationMs || 0 });
  });
  return rows;
}

export function Waterfall({ trace, spec, selected, onSelect }) {
  const rows = lanesOf(trace, stepPlaces(spec));
  const end = Math.max(trace.durationMs || 0, ...rows.flatMap((r) => r.steps.map((s) => s.start + s.duration)), 1);
  const labelW = 220;
  const chartW = 560;
  const rowH = 26;
  const x = (t) => labelW + (t / end) * chartW;
  const height = rows.length * rowH + 28;
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => f * end);
  return html`<figure class="waterfall">
    <figcaption>Step timeline: queue wait (light) and run (solid) from the execution's start, ${ms(end)} in all.</figcaption>
    <svg
      width="100%"
      viewBox=${`0 0 ${labelW + chartW + 20} ${height}`}
      role="img"
      aria-label=${`Waterfall of ${trace.steps.length} steps over ${ms(end)}; the table below lists each step`}
    >
      ${ticks.map(
        (t) =>
          html`<g class="wf-tick">
            <line x1=${x(t)} x2=${x(t)} y1="0" y2=${height - 20} />
            <text x=${x(t)} y=${height - 6} text-anchor="middle">${ms(t)}</text>
          </g>`,
      )}
      ${rows.map((r, i) => {
        const y = i * rowH + 4;
        return html`<g class=${'wf-row' + (r.lane ? ' wf-lane' : '')}>
          <text x=${8 + r.depth * 14} y=${y + 15} class="wf-label">${r.label.length > 28 ? r.label.slice(0, 27) + '…' : r.label}</text>
          ${r.steps.map(
            (s) =>
              html`<g class=${'wf-bar wf-' + s.rec.status + (selected === s.rec.id ? ' wf-selected' : '')} onClick=${() => onSelect(s.rec.id)}>
                <title>${`${s.rec.id} (${s.rec.kind}): queue ${ms(s.queue)}, run ${ms(s.duration)}, ${s.rec.status}`}</title>
                <rect
                  class="wf-queue"
                  x=${x(Math.max(0, s.start - s.queue))}
                  y=${y + 4}
                  width=${Math.max(0, x(s.start) - x(Math.max(0, s.start - s.queue)))}
                  height="14"
                />
                <rect class="wf-run" x=${x(s.start)} y=${y + 2} width=${Math.max(2, x(s.start + s.duration) - x(s.start))} height="18" />
                ${r.lane ? html`<text x=${x(s.start) + 3} y=${y + 15} class="wf-bar-label">${s.rec.id.slice(0, 14)}</text>` : null}
              </g>`,
          )}
        </g>`;
      })}
    </svg>
  </figure>`;
}
