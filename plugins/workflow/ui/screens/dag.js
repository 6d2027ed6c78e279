// A read-only drawing of a workflow spec as SVG: steps top to bottom; `when`, `fanOut` and
// `branch` open lanes side by side (the condition, each branch, each case and the default), joined
// below (fanOut's join step, or a merge point). Labels are text nodes; steps with a validation
// error are outlined. The JSON beside it is the text alternative.
import { html } from '../lib/preact.js';

const W = 176;
const H = 44;
const VGAP = 26;
const HGAP = 18;
const P = 10;
const LH = 18;

const clip = (s, n) => (s.length > n ? s.slice(0, n - 1) + '…' : s);

/** Every step's JSON path, for placing errors on the step they belong to. */
export function stepPaths(spec) {
  const out = [];
  const seq = (steps, path) => (Array.isArray(steps) ? steps : []).forEach((s, i) => step(s, `${path}[${i}]`));
  const step = (s, p) => {
    out.push(p);
    if (!s || typeof s !== 'object') return;
    if (s.kind === 'when') seq(s.steps, `${p}.steps`);
    if (s.kind === 'fanOut') {
      (Array.isArray(s.branches) ? s.branches : []).forEach((b, i) => seq(b, `${p}.branches[${i}]`));
      if (s.join) out.push(`${p}.join`);
    }
    if (s.kind === 'branch' && s.config) {
      (Array.isArray(s.config.cases) ? s.config.cases : []).forEach((c, i) => seq(c && c.steps, `${p}.config.cases[${i}].steps`));
      seq(s.config.default, `${p}.config.default`);
    }
  };
  seq(spec && spec.steps, '$.steps');
  return out;
}

/** The step path an error path belongs to: the longest step path it starts with. */
export function ownerOf(errorPath, paths) {
  let best = null;
  for (const p of paths) {
    if (errorPath === p || errorPath.startsWith(p + '.') || errorPath.startsWith(p + '[')) if (!best || p.length > best.length) best = p;
  }
  return best;
}

function node(step, path, bad, label, ctx) {
  const id = String(step && step.id !== undefined ? step.id : '?');
  const kind = String(label || (step && step.kind) || '?');
  return {
    w: W,
    h: H,
    draw: (x, y) =>
      html`<g
        class=${'dag-node dag-' + (step && typeof step.kind === 'string' ? step.kind : 'join') + (bad.has(path) ? ' dag-bad' : '')}
        data-path=${path}
        onClick=${ctx && ctx.onSelect ? () => ctx.onSelect(path) : undefined}
      >
        <title>${`${id} (${kind})${bad.has(path) ? ': has a validation error' : ''}`}</title>
        <rect x=${x} y=${y} width=${W} height=${H} rx="6" />
        <text x=${x + W / 2} y=${y + 18} text-anchor="middle" class="dag-id">${clip(id, 24)}</text>
        <text x=${x + W / 2} y=${y + 34} text-anchor="middle" class="dag-kind">${clip(kind, 28)}</text>
      </g>`,
  };
}

function edge(x1, y1, x2, y2) {
  if (x1 === x2) return html`<line class="dag-edge" x1=${x1} y1=${y1} x2=${x2} y2=${y2} marker-end="url(#dag-arrow)" />`;
  const mid = (y1 + y2) / 2;
  return html`<polyline class="dag-edge" fill="none" points=${`${x1},${y1} ${x1},${mid} ${x2},${mid} ${x2},${y2}`} marker-end="url(#dag-arrow)" />`;
}

function seq(steps, path, bad, ctx) {
  const list = Array.isArray(steps) ? steps : [];
  if (list.length === 0)
    return {
      w: 96,
      h: 24,
      draw: (x, y) => html`<text x=${x + 48} y=${y + 16} text-anchor="middle" class="dag-empty">no steps</text>`,
    };
  const blocks = list.map((s, i) => block(s, `${path}[${i}]`, bad, ctx));
  const w = Math.max(...blocks.map((b) => b.w));
  const h = blocks.reduce((n, b) => n + b.h, 0) + VGAP * (blocks.length - 1);
  return {
    w,
    h,
    draw: (x, y) => {
      const out = [];
      let at = y;
      const cx = x + w / 2;
      blocks.forEach((b, i) => {
        out.push(b.draw(x + (w - b.w) / 2, at));
        if (i < blocks.length - 1) out.push(edge(cx, at + b.h, cx, at + b.h + VGAP));
        at += b.h + VGAP;
      });
      return out;
    },
  };
}

function lanes(step, path, bad, ctx) {
  const c = (step && step.config) || {};
  if (step.kind === 'when')
    return [
      { label: 'if ' + String(c.condition ?? '?'), body: seq(step.steps, `${path}.steps`, bad, ctx) },
      { label: 'else', body: seq([], '', bad, ctx), skip: true },
    ];
  if (step.kind === 'fanOut')
    return (Array.isArray(step.branches) ? step.branches : []).map((b, i) => ({ label: `branch ${i}`, body: seq(b, `${path}.branches[${i}]`, bad, ctx) }));
  const cases = Array.isArray(c.cases) ? c.cases : [];
  return [
    ...cases.map((k, i) => ({ label: 'when ' + String((k && k.when) ?? '?'), body: seq(k && k.steps, `${path}.config.cases[${i}].steps`, bad, ctx) })),
    { label: 'default', body: seq(c.default, `${path}.config.default`, bad, ctx) },
  ];
}

function block(step, path, bad, ctx) {
  if (!step || typeof step !== 'object' || !['when', 'fanOut', 'branch'].includes(step.kind)) return node(step, path, bad, undefined, ctx);
  const header = node(step, path, bad, step.kind === 'when' ? 'when' : step.kind, ctx);
  const ls = lanes(step, path, bad, ctx).map((l) => {
    const text = clip(l.label, 40);
    const w = Math.max(l.body.w, text.length * 6.6) + 2 * P;
    return { ...l, text, w, h: LH + l.body.h + 2 * P };
  });
  const join =
    step.kind === 'fanOut' && step.join ? node({ id: step.join.id, kind: 'join' }, `${path}.join`, bad, 'join · ' + String(step.join.kind ?? '?'), ctx) : null;
  const rowW = ls.reduce((n, l) => n + l.w, 0) + HGAP * Math.max(0, ls.length - 1);
  const rowH = Math.max(0, ...ls.map((l) => l.h));
  const w = Math.max(W, rowW);
  const tail = join ? H : 10;
  const h = H + VGAP + rowH + VGAP + tail;
  return {
    w,
    h,
    draw: (x, y) => {
      const cx = x + w / 2;
      const out = [header.draw(cx - W / 2, y)];
      let lx = x + (w - rowW) / 2;
      const top = y + H + VGAP;
      const bottom = top + rowH + VGAP;
      for (const l of ls) {
        const lcx = lx + l.w / 2;
        out.push(edge(cx, y + H, lcx, top));
        out.push(
          html`<g class=${'dag-lane' + (l.skip ? ' dag-lane-skip' : '')}>
            <rect x=${lx} y=${top} width=${l.w} height=${l.h} rx="8" />
            <text x=${lx + P} y=${top + 14} class="dag-lane-label">${l.text}</text>
          </g>`,
        );
        out.push(l.body.draw(lx + (l.w - l.body.w) / 2, top + LH + P));
        out.push(edge(lcx, top + l.h, cx, bottom));
        lx += l.w + HGAP;
      }
      if (join) out.push(join.draw(cx - W / 2, bottom));
      else out.push(html`<circle class="dag-merge" cx=${cx} cy=${bottom + 5} r="5" />`);
      return out;
    },
  };
}

/** The drawing; `errors`: validation errors `{path}`, whose steps are outlined; `onSelect(path)` when a step is clicked. */
export function Dag({ spec, errors = [], onSelect }) {
  const paths = stepPaths(spec);
  const bad = new Set(errors.map((e) => ownerOf(e.path, paths)).filter(Boolean));
  const route = spec && spec.route ? `${spec.route.method} ${spec.route.path}` : 'no route';
  const start = { w: W, h: 30 };
  const body = seq(spec && spec.steps, '$.steps', bad, { onSelect });
  const w = Math.max(W, body.w) + 24;
  const h = start.h + VGAP + body.h + VGAP + 30 + 24;
  const cx = w / 2;
  const by = 12 + start.h + VGAP;
  const n = paths.length;
  return html`<svg
    class="dag"
    width=${w}
    height=${h}
    viewBox=${`0 0 ${w} ${h}`}
    role="img"
    aria-label=${`Drawing of the workflow ${String((spec && spec.name) ?? '')}: ${n} step${n === 1 ? '' : 's'}${bad.size ? `, ${bad.size} with errors` : ''}`}
  >
    <defs>
      <marker id="dag-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
        <path d="M 0 0 L 10 5 L 0 10 z" class="dag-arrowhead" />
      </marker>
    </defs>
    <g class="dag-terminal">
      <rect x=${cx - W / 2} y="12" width=${W} height=${start.h} rx="15" />
      <text x=${cx} y="32" text-anchor="middle">${clip(route, 30)}</text>
    </g>
    ${edge(cx, 12 + start.h, cx, by)} ${body.draw(cx - body.w / 2, by)} ${edge(cx, by + body.h, cx, by + body.h + VGAP)}
    <g class="dag-terminal">
      <rect x=${cx - W / 2} y=${by + body.h + VGAP} width=${W} height="30" rx="15" />
      <text x=${cx} y=${by + body.h + VGAP + 20} text-anchor="middle">response</text>
    </g>
  </svg>`;
}
