import { parseCadence, z, type PluginContext } from 'tessera-runtime/plugin';
import type { ConsoleOptions } from './options.js';

const nextRunsQuery = z.strictObject({
  /** A cron expression (croner syntax: five or six fields, or @daily and the like). */
  cron: z.string().max(200).optional(),
  /** An IANA time zone for `cron`; UTC when absent. */
  timezone: z.string().max(100).optional(),
  /** An interval such as 30s, 15m, 6h, 1d. */
  interval: z.string().max(40).optional(),
  /** How many runs to list. */
  count: z.coerce.number().int().min(1).max(20).default(5),
});

/**
 * `GET /api/console/next-runs`: the next runs of a schedule's cadence, computed by the runtime's own
 * scheduler code (`parseCadence`, the check `ctx.jobs.schedule` makes), so that a form can show them,
 * and the cadence's errors, before the schedule is saved. An interval counts from now, as a
 * schedule created now would.
 */
export function registerNextRuns(ctx: PluginContext<ConsoleOptions>): void {
  ctx.routes.add({
    method: 'GET',
    path: '/api/console/next-runs',
    permission: 'authenticated',
    throttle: 'light',
    query: nextRunsQuery,
    summary: "A cron expression's or an interval's next runs (for a schedule form, before saving)",
    tags: ['console'],
    handler({ query }) {
      const cadence = parseCadence({
        ...(query.cron !== undefined ? { cron: query.cron } : {}),
        ...(query.interval !== undefined ? { interval: query.interval } : {}),
        ...(query.timezone !== undefined ? { timezone: query.timezone } : {}),
      });
      const now = new Date();
      const runs: string[] = [];
      let after = now;
      for (let i = 0; i < query.count; i++) {
        const next = cadence.next(after, now);
        if (next.getTime() >= 8.64e15) break;
        runs.push(next.toISOString());
        after = next;
      }
      return {
        ...(cadence.cron !== undefined ? { cron: cadence.cron, timezone: cadence.timezone ?? 'UTC' } : { interval: cadence.interval }),
        runs,
      };
    },
  });
}
