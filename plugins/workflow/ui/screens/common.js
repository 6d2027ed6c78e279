// Small pieces the hub's screens share.
import { html } from '../lib/preact.js';
import { Badge } from '../lib/components.js';

export { can } from '../lib/session.js';

const kinds = { completed: 'good', passed: 'good', failed: 'bad', error: 'bad', rejected: 'bad', interrupted: 'warn', running: 'info' };

export function StatusBadge({ status }) {
  if (!status) return html`<span class="muted">never run</span>`;
  return html`<${Badge} kind=${kinds[status] || 'neutral'}>${status}<//>`;
}

export function ms(v) {
  if (v === null || v === undefined) return '–';
  if (v === 0) return '0 ms';
  if (v >= 1000) return (v / 1000).toFixed(v >= 10_000 ? 0 : 2) + ' s';
  return (v >= 10 ? Math.round(v) : Number(v).toFixed(v >= 1 ? 1 : 2)) + ' ms';
}

/** The route of a workflow as `METHOD /path`. */
export function routeText(route) {
  return route ? `${route.method} ${route.path}` : '–';
}

/** The id used in URLs for a new workflow: `+` is not valid in a workflow name, so it never names one. */
export const NEW_ID = '+new';

export const template = {
  name: 'my-workflow',
  version: '1',
  route: { method: 'POST', path: '/my-workflow' },
  searchFields: [],
  tags: [],
  steps: [{ id: 'shape', kind: 'map', config: { set: { received: '{{input}}' }, mergeInput: false } }],
};
