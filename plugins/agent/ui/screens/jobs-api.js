// The ticket-jobs API of the agent (docs/agent-api.md, "Ticket jobs"): the console's client side.
import { request } from '../lib/api.js';

export const states = ['queued', 'triaging', 'awaiting_clarification', 'planning', 'patching', 'testing', 'proposing', 'completed', 'failed', 'cancelled'];
export const terminal = new Set(['completed', 'failed', 'cancelled']);
export const stateLabel = (s) => s.replace(/_/g, ' ');
export const stateKind = (s) =>
  s === 'completed' ? 'good' : s === 'failed' ? 'bad' : s === 'cancelled' ? 'neutral' : s === 'awaiting_clarification' ? 'warn' : 'info';

/** The ticket events of the telemetry feed, new ones only (`job` narrows them to one job). */
export function ticketFeed(jobId) {
  return '/api/v1/telemetry/events?kind=ticket.*&from=now' + (jobId ? '&job=' + encodeURIComponent(jobId) : '');
}
export const ticketEvents = ['ticket.state', 'ticket.questions', 'ticket.proposed', 'ticket.completed', 'ticket.failed'];

/** Every job (following `next`), or those of one state; at most `max`. */
export async function listJobs({ state, max = 500 } = {}) {
  const jobs = [];
  let cursor;
  do {
    const q = new URLSearchParams({ limit: '100' });
    if (state) q.set('state', state);
    if (cursor) q.set('cursor', cursor);
    const page = await request('/api/v1/jobs?' + q);
    jobs.push(...page.jobs);
    cursor = page.next;
  } while (cursor && jobs.length < max);
  return jobs;
}

export function getJob(id) {
  return request('/api/v1/jobs/' + encodeURIComponent(id)).then((a) => a.job);
}

/** True when the agent does not serve ticket jobs at all (the route is missing, not the job). */
export function jobsNotServed(error) {
  return error && error.status === 404 && error.code !== 'job_not_found';
}

/** Tokens of a step: a number, or `{in, out, ...}`. */
export function tokensText(t) {
  if (t === undefined || t === null) return '–';
  if (typeof t === 'number') return t.toLocaleString('en');
  if (typeof t === 'object')
    return Object.entries(t)
      .map(([k, v]) => `${k} ${typeof v === 'number' ? v.toLocaleString('en') : String(v)}`)
      .join(', ');
  return String(t);
}

/** Only http(s) links from a server are made links. */
export function safeUrl(url) {
  try {
    const u = new URL(url, location.href);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.href : undefined;
  } catch {
    return undefined;
  }
}
