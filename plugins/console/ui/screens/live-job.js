import { html, useRef, useState } from '../lib/preact.js';
import { request } from '../lib/api.js';
import { Badge, ErrorBox, useEventSource, useResource } from '../lib/components.js';

const finalStates = ['completed', 'failed', 'cancelled', 'stopped', 'interrupted'];

export function stateBadge(state) {
  const kind = state === 'completed' ? 'good' : state === 'failed' ? 'bad' : state === 'running' || state === 'watching' ? 'info' : 'neutral';
  return html`<${Badge} kind=${kind}>${state}<//>`;
}

/**
 * A job or scan followed live: its record is read once, then again whenever its Server-Sent
 * Events feed says something happened (at most every 200 ms), until a final state.
 */
export function useLiveRecord(recordUrl, eventsUrl, types, pick) {
  const res = useResource(() => request(recordUrl).then(pick), [recordUrl]);
  const [events, setEvents] = useState(0);
  const timer = useRef(null);
  const done = res.data && finalStates.includes(res.data.state);
  useEventSource(done ? null : eventsUrl, types, () => {
    setEvents((n) => n + 1);
    if (timer.current) return;
    timer.current = setTimeout(() => {
      timer.current = null;
      res.reload();
    }, 200);
  });
  return { ...res, events };
}

export function Progress({ value, label }) {
  if (value === undefined || value === null) return null;
  return html`<progress max="1" value=${value} aria-label=${label}>${Math.round(value * 100)}%</progress>`;
}

export function LiveError({ error }) {
  return html`<${ErrorBox} error=${error} />`;
}
