import { html } from '../lib/preact.js';

const size = 420;
const centre = size / 2;
const radius = 150;

function clip(text, n = 18) {
  const s = String(text);
  return s.length > n ? s.slice(0, n - 1) + '…' : s;
}

/**
 * An entity and its neighbours as a node-link drawing: the entity in the middle, its neighbours on
 * a circle around it, one line per triple labelled with its predicate (an arrow towards the
 * object). Every label is an SVG text node: nothing from the server is markup.
 */
export function GraphDrawing({ entity, neighbours, triples }) {
  const n = Math.max(neighbours.length, 1);
  const at = new Map([[entity.id, { x: centre, y: centre }]]);
  neighbours.forEach((e, i) => {
    const angle = -Math.PI / 2 + Math.PI / n + (2 * Math.PI * i) / n;
    at.set(e.id, { x: centre + radius * Math.cos(angle), y: centre + radius * Math.sin(angle) });
  });
  const edges = triples.filter((t) => at.has(t.subject) && at.has(t.object) && t.subject !== t.object);
  const label = `${entity.name} and ${neighbours.length} neighbours: ` + edges.map((t) => `${t.subject} ${t.predicate} ${t.object}`).join('; ');
  return html`<svg class="graph-drawing" viewBox=${`0 0 ${size} ${size}`} role="img" aria-label=${label} data-testid="graph-drawing">
    <defs>
      <marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse">
        <path d="M 0 0 L 10 5 L 0 10 z" class="graph-arrow" />
      </marker>
    </defs>
    ${edges.map((t) => {
      const a = at.get(t.subject);
      const b = at.get(t.object);
      // Stop the line at the node's edge so the arrow shows.
      const dx = b.x - a.x;
      const dy = b.y - a.y;
      const len = Math.hypot(dx, dy) || 1;
      const r = 24;
      const x1 = a.x + (dx / len) * r;
      const y1 = a.y + (dy / len) * r;
      const x2 = b.x - (dx / len) * r;
      const y2 = b.y - (dy / len) * r;
      return html`<g class="graph-edge" key=${t.subject + '\u0000' + t.predicate + '\u0000' + t.object}>
        <line x1=${x1} y1=${y1} x2=${x2} y2=${y2} marker-end="url(#arrow)" />
        <text x=${(x1 + x2) / 2} y=${(y1 + y2) / 2 - 4} text-anchor="middle">${clip(t.predicate, 16)}</text>
      </g>`;
    })}
    ${[entity, ...neighbours].map((e) => {
      const p = at.get(e.id);
      const main = e.id === entity.id;
      return html`<g class=${'graph-node' + (main ? ' graph-node-main' : '')} key=${e.id}>
        <circle cx=${p.x} cy=${p.y} r=${main ? 26 : 20} />
        <text x=${p.x} y=${p.y + (main ? 42 : 34)} text-anchor="middle">${clip(e.name)}</text>
      </g>`;
    })}
  </svg>`;
}
