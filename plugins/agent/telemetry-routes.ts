import { eventStreamResponse, reply, z, type PluginContext } from 'tessera-runtime/plugin';
import type { Circuits } from './circuits.js';
import type { DeadLetters } from './dead-letters.js';
import { toOpenMetrics } from './openmetrics.js';
import type { AgentOptions } from './options.js';

const eventsQuery = z.strictObject({
  after: z.coerce.number().int().min(0).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  /** Comma-separated event types; a trailing `*` matches a prefix (`llm.*`). */
  kind: z.string().min(1).max(500).optional(),
  /** Only the events of one job (its id is their subject). */
  job: z.string().min(1).max(200).optional(),
  /** For the SSE form: start at the oldest kept event (`start`, default) or at new ones (`now`). */
  from: z.enum(['start', 'now']).optional(),
});

const dlqQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(1000).default(50),
  cursor: z.string().min(1).max(100).optional(),
  job: z.string().min(1).max(100).optional(),
});

export interface TelemetryRouteDeps {
  circuits: Circuits;
  deadLetters: DeadLetters;
}

/** `/api/v1/telemetry/*`: the event feed (JSON pages or SSE), the dead-letter queue, the circuits. */
export function registerTelemetryRoutes(ctx: PluginContext<AgentOptions>, d: TelemetryRouteDeps): void {
  const tags = ['agent: telemetry'];

  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/telemetry/events',
    permission: 'agent:telemetry',
    throttle: 'light',
    query: eventsQuery,
    tags,
    summary: 'Every event of the tenant: JSON pages, or a live SSE stream that resumes from Last-Event-ID',
    handler(request) {
      const { query } = request;
      const log = ctx.events.forTenant(request.tenant);
      const types = query.kind
        ? query.kind
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean)
        : undefined;
      const filter = { ...(types ? { types } : {}), ...(query.job ? { subject: query.job } : {}) };
      const accept = request.headers.get('accept') ?? '';
      if (accept.includes('text/event-stream')) {
        return eventStreamResponse(request, log, { filter, ...(query.from ? { from: query.from } : {}) });
      }
      const page = log.read({ ...filter, after: query.after ?? 0, limit: query.limit });
      return { events: page.events, ...(page.gap ? { gap: page.gap } : {}), next: page.next, more: page.more };
    },
  });

  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/telemetry/dlq',
    permission: 'agent:telemetry',
    throttle: 'light',
    query: dlqQuery,
    tags,
    summary: 'Quarantined failures, newest first, with error, stack traces, attempts and redacted input',
    handler: ({ tenant, query }) => {
      const page = d.deadLetters.list(tenant, { limit: query.limit, after: query.cursor, jobName: query.job });
      return { records: page.records, ...(page.next ? { next: page.next } : {}) };
    },
  });

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/telemetry/dlq/:dlq_id/replay',
    permission: 'agent:submit',
    tags,
    summary: 'Replay a quarantined task from a clean state as a new job',
    async handler({ tenant, params }) {
      const replay = await d.deadLetters.replay(tenant, params.dlq_id!);
      return reply(202, replay);
    },
  });

  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/telemetry/circuit-breakers',
    permission: 'agent:telemetry',
    throttle: 'light',
    tags,
    summary: 'Every circuit of the tenant with its state, counters, last error and probe time',
    handler: ({ tenant }) => {
      const circuits = d.circuits.list(tenant);
      const summary = { closed: 0, open: 0, half_open: 0 } as Record<string, number>;
      for (const c of circuits) summary[c.state] = (summary[c.state] ?? 0) + 1;
      return { summary, circuits };
    },
  });

  ctx.routes.add({
    method: 'GET',
    path: '/metrics/prometheus',
    permission: 'public',
    throttle: 'light',
    tags,
    summary: 'Prometheus text, or OpenMetrics when asked (Accept: application/openmetrics-text)',
    async handler(request) {
      const registry = ctx.metrics.registry;
      const wantsOpenMetrics = (request.headers.get('accept') ?? '').includes('application/openmetrics-text');
      if (!wantsOpenMetrics) return new Response(await registry.metrics(), { headers: { 'content-type': registry.contentType } });
      const text = toOpenMetrics(await registry.metrics());
      return new Response(text, { headers: { 'content-type': 'application/openmetrics-text; version=1.0.0; charset=utf-8' } });
    },
  });
}
