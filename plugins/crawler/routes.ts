import {
  eventStreamResponse,
  JobNotFoundError,
  reply,
  sortableId,
  terminalJobStates,
  z,
  type JobRecord,
  type JobState,
  type PluginContext,
  type ScheduleRecord,
  type ScheduleSpec,
} from 'tessera-runtime/plugin';
import { scheduleCreateBody, schedulePatchBody, type AutoIndex, type CrawlConfig, type CrawlInput } from './crawl-config.js';
import { errors } from './errors.js';
import { publicJob, runSummary, type CrawlJobState } from './job-view.js';
import type { CrawlerOptions } from './options.js';
import type { CheckpointStore } from './crawl-checkpoint.js';
import type { PageStore } from './page-store.js';

export const CRAWL_JOB = 'crawl';

const finalJobEvents = new Set(['job.completed', 'job.failed', 'job.cancelled', 'job.interrupted']);

/** The last event of a job's feed. `job.interrupted` of a job queued again to resume is not. */
const isFinalJobEvent = (event: { type: string; data: unknown }): boolean =>
  finalJobEvents.has(event.type) && (event.data as { state?: string } | null)?.state !== 'queued';

const jobStates: Record<CrawlJobState, JobState[]> = {
  queued: ['queued'],
  running: ['running'],
  completed: ['completed'],
  failed: ['failed', 'interrupted'],
  cancelled: ['cancelled'],
};

const jobsQuery = z.strictObject({
  schedule: z.string().min(1).optional(),
  state: z.enum(['queued', 'running', 'completed', 'failed', 'cancelled']).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(50),
  cursor: z.string().min(1).optional(),
});

export interface RouteDeps {
  pages: PageStore;
  checkpoints: CheckpointStore;
}

export function registerRoutes(ctx: PluginContext<CrawlerOptions>, deps: RouteDeps): void {
  const tags = ['crawler'];
  const allow = { allowPrivate: ctx.config.allowPrivateAddresses, allowHosts: ctx.config.allowHosts };

  /** Seeds and index URLs go through the egress policy now, so a refused one is a 403 rather than a failed run. */
  const checkUrls = (config: CrawlConfig | undefined, autoIndex: AutoIndex | null | undefined): void => {
    for (const url of config?.seeds ?? []) {
      const verdict = ctx.outbound.check(url, allow);
      if (!verdict.allowed) throw errors.seed_not_allowed({ url, reason: verdict.reason });
    }
    for (const url of [autoIndex?.engineUrl, autoIndex?.bulkUrl]) {
      if (url === undefined) continue;
      const verdict = ctx.outbound.check(url, allow);
      if (!verdict.allowed) throw errors.index_url_not_allowed({ url, reason: verdict.reason });
    }
  };

  const findSchedule = (tenant: string, id: string): ScheduleRecord<CrawlInput> => {
    const record = ctx.jobs.tenant(tenant).getSchedule(id) as ScheduleRecord<CrawlInput> | undefined;
    if (!record || record.jobName !== CRAWL_JOB) throw errors.schedule_not_found({ id });
    return record;
  };

  const findJob = (tenant: string, id: string): JobRecord => {
    const job = ctx.jobs.tenant(tenant).get(id);
    if (!job || job.name !== CRAWL_JOB) throw new JobNotFoundError(id);
    return job;
  };

  /** Cancels a job; one that was waiting to resume will not, so its checkpoint goes too. */
  const cancelJob = async (tenant: string, id: string): Promise<JobRecord | undefined> => {
    const after = await ctx.jobs.tenant(tenant).cancel(id);
    if (after && terminalJobStates.has(after.state)) await deps.checkpoints.drop(id);
    return after;
  };

  const publicSchedule = (tenant: string, record: ScheduleRecord<CrawlInput>) => {
    const last = record.lastJobId ? ctx.jobs.tenant(tenant).get(record.lastJobId) : undefined;
    return {
      id: record.id,
      name: record.input.name,
      ...(record.cron !== undefined ? { cron: record.cron } : {}),
      ...(record.interval !== undefined ? { interval: record.interval } : {}),
      ...(record.timezone !== undefined ? { timezone: record.timezone } : {}),
      catchUp: record.catchUp,
      paused: record.paused,
      nextRunAt: record.nextRunAt,
      lastRunAt: record.lastRunAt ?? null,
      lastRun: last ? runSummary(last) : null,
      skippedTicks: record.skippedTicks,
      ...(record.lastSkippedAt ? { lastSkippedAt: record.lastSkippedAt } : {}),
      config: record.input.config,
      ...(record.input.autoIndex ? { autoIndex: record.input.autoIndex } : {}),
      pagesKnown: deps.pages.count(tenant, record.id),
      createdAt: record.createdAt,
      updatedAt: record.updatedAt,
    };
  };

  ctx.routes.add({
    method: 'GET',
    path: '/v1/schedules',
    permission: 'search:read',
    throttle: 'light',
    summary: 'Crawl schedules, oldest first: frequency (`cron` or `interval`), `nextRunAt`, `lastRun` summary, `paused`',
    tags,
    handler: ({ tenant }) => ({
      schedules: ctx.jobs
        .tenant(tenant)
        .listSchedules()
        .filter((s) => s.jobName === CRAWL_JOB)
        .sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : 1))
        .map((s) => publicSchedule(tenant, s as ScheduleRecord<CrawlInput>)),
    }),
  });

  ctx.routes.add({
    method: 'POST',
    path: '/v1/schedules',
    permission: 'index:admin',
    body: scheduleCreateBody,
    successStatus: 201,
    summary: 'Create a recurring crawl (`cron` or `interval`); answers 201 with its id and first run time',
    tags,
    async handler({ tenant, body }) {
      checkUrls(body.config, body.autoIndex);
      const id = sortableId('sch_');
      const spec: ScheduleSpec = {
        ...(body.cron !== undefined ? { cron: body.cron } : {}),
        ...(body.interval !== undefined ? { interval: body.interval } : {}),
        ...(body.timezone !== undefined ? { timezone: body.timezone } : {}),
        ...(body.catchUp !== undefined ? { catchUp: body.catchUp } : {}),
        paused: body.paused,
      };
      const input: CrawlInput = { name: body.name, config: body.config, ...(body.autoIndex ? { autoIndex: body.autoIndex } : {}) };
      // The runtime checks the cadence (both, neither, a bad expression) before it stores anything.
      const record = await ctx.jobs.tenant(tenant).schedule(id, spec, CRAWL_JOB, input);
      return reply(201, { id: record.id, nextRunAt: record.nextRunAt }, { location: `/v1/schedules/${record.id}` });
    },
  });

  ctx.routes.add({
    method: 'GET',
    path: '/v1/schedules/:id',
    permission: 'search:read',
    throttle: 'light',
    summary: 'One crawl schedule',
    tags,
    handler: ({ tenant, params }) => ({ schedule: publicSchedule(tenant, findSchedule(tenant, params.id!)) }),
  });

  ctx.routes.add({
    method: 'PATCH',
    path: '/v1/schedules/:id',
    permission: 'index:admin',
    body: schedulePatchBody,
    summary: 'Pause (`paused: true`), resume, or change a schedule: its cadence, name, `config` or `autoIndex` (each replaced whole)',
    tags,
    async handler({ tenant, params, body }) {
      const current = findSchedule(tenant, params.id!);
      checkUrls(body.config, body.autoIndex);
      const input: CrawlInput = {
        name: body.name ?? current.input.name,
        config: body.config ?? current.input.config,
        ...(body.autoIndex === null
          ? {}
          : body.autoIndex
            ? { autoIndex: body.autoIndex }
            : current.input.autoIndex
              ? { autoIndex: current.input.autoIndex }
              : {}),
      };
      const updated = await ctx.jobs.tenant(tenant).updateSchedule(current.id, {
        ...(body.cron !== undefined ? { cron: body.cron } : {}),
        ...(body.interval !== undefined ? { interval: body.interval } : {}),
        ...(body.timezone !== undefined ? { timezone: body.timezone } : {}),
        ...(body.catchUp !== undefined ? { catchUp: body.catchUp } : {}),
        ...(body.paused !== undefined ? { paused: body.paused } : {}),
        input,
      });
      if (!updated) throw errors.schedule_not_found({ id: params.id! });
      return { schedule: publicSchedule(tenant, updated as ScheduleRecord<CrawlInput>) };
    },
  });

  ctx.routes.add({
    method: 'DELETE',
    path: '/v1/schedules/:id',
    permission: 'index:admin',
    summary: 'Delete a schedule: a run in progress is cancelled; its jobs stay in the history, its page states are forgotten',
    tags,
    async handler({ tenant, params }) {
      const record = findSchedule(tenant, params.id!);
      const jobs = ctx.jobs.tenant(tenant);
      await jobs.unschedule(record.id);
      const active = jobs.list({ name: CRAWL_JOB, scheduleId: record.id, state: ['queued', 'running'], limit: 100 }).jobs;
      for (const job of active) await cancelJob(tenant, job.id);
      await deps.pages.drop(tenant, record.id);
      return { deleted: true, id: record.id };
    },
  });

  ctx.routes.add({
    method: 'POST',
    path: '/v1/schedules/:id/run',
    permission: 'index:admin',
    summary: "Run a schedule now; while a run of it is in progress, answers with that run's job id (no second run)",
    tags,
    async handler({ tenant, params }) {
      const record = findSchedule(tenant, params.id!);
      const run = await ctx.jobs.tenant(tenant).trigger(record.id);
      if (!run) throw errors.schedule_not_found({ id: params.id! });
      return { jobId: run.job.id, started: run.started };
    },
  });

  ctx.routes.add({
    method: 'GET',
    path: '/v1/jobs',
    permission: 'search:read',
    throttle: 'light',
    query: jobsQuery,
    summary: 'Crawl jobs, newest first (`schedule`, `state`, `limit`, `cursor` = the `next` of the previous page)',
    tags,
    handler({ tenant, query }) {
      const page = ctx.jobs.tenant(tenant).list({
        name: CRAWL_JOB,
        ...(query.schedule ? { scheduleId: query.schedule } : {}),
        ...(query.state ? { state: jobStates[query.state] } : {}),
        limit: query.limit,
        ...(query.cursor ? { cursor: query.cursor } : {}),
      });
      return { jobs: page.jobs.map(publicJob), ...(page.next ? { next: page.next } : {}) };
    },
  });

  ctx.routes.add({
    method: 'GET',
    path: '/v1/jobs/:jobId',
    permission: 'search:read',
    throttle: 'light',
    summary: 'One crawl job: state, counts, errors, progress and timestamps',
    tags,
    handler: ({ tenant, params }) => ({ job: publicJob(findJob(tenant, params.jobId!)) }),
  });

  ctx.routes.add({
    method: 'GET',
    path: '/v1/jobs/:jobId/events',
    permission: 'search:read',
    produces: 'text/event-stream',
    summary: 'Server-Sent Events of one crawl job (`job.started`, `job.progress` with its counts, ...); ends with its final state',
    tags,
    handler(request) {
      findJob(request.tenant, request.params.jobId!);
      return eventStreamResponse(request, ctx.events.forTenant(request.tenant), {
        filter: { subject: request.params.jobId!, types: ['job.*'] },
        endAfter: isFinalJobEvent,
      });
    },
  });

  ctx.routes.add({
    method: 'POST',
    path: '/v1/jobs/:jobId/cancel',
    permission: 'index:admin',
    summary: 'Cancel a crawl job: a queued one at once, a running one after its in-flight requests stop (what it indexed stays)',
    tags,
    async handler({ tenant, params }) {
      const job = findJob(tenant, params.jobId!);
      const after = (await cancelJob(tenant, job.id)) ?? job;
      return { job: publicJob(ctx.jobs.tenant(tenant).get(after.id) ?? after) };
    },
  });
}
