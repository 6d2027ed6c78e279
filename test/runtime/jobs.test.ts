import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, json, type TestApp } from '../helpers/app.js';
import { parseCadence, parseInterval } from '../../runtime/jobs/cadence.js';
import { retryDelayMs } from '../../runtime/jobs/backoff.js';

const worker = { module: './plugins/worker/index.js', options: { sleepConcurrency: 2 } };

async function call(t: TestApp, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${t.url()}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await json(res) };
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

describe('ctx.jobs', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ listeners: [{ name: 'main', port: 0, plugins: ['worker'] }], plugins: { worker } });
  });
  afterAll(() => t.stop());

  it('runs a job to completion with progress, result, attempt history and one event per transition', async () => {
    const created = await call(t, 'POST', '/jobs', { name: 'sleep', input: { ms: 80 } });
    expect(created.status).toBe(201);
    expect(created.body.job).toMatchObject({
      name: 'sleep',
      plugin: 'worker',
      tenant: 'default',
      state: 'queued',
      attempt: 0,
      maxAttempts: 1,
      input: { ms: 80 },
    });
    expect(created.body.job.id).toMatch(/^job_[0-9a-z]{13}[0-9a-f]{8}$/);
    const done = (await call(t, 'GET', `/jobs/${created.body.job.id}/wait`)).body.job;
    expect(done).toMatchObject({ state: 'completed', attempt: 1, result: { slept: 80, attempt: 1 }, progress: { value: 1, details: { slept: 80 } } });
    expect(done.attempts).toEqual([{ attempt: 1, startedAt: expect.any(String), finishedAt: expect.any(String) }]);
    expect(Date.parse(done.finishedAt)).toBeGreaterThanOrEqual(Date.parse(done.startedAt));
    const events = (await call(t, 'GET', `/events?limit=1000`)).body.events.filter((e: any) => e.subject === done.id).map((e: any) => e.type);
    expect(events[0]).toBe('job.queued');
    expect(events[1]).toBe('job.started');
    expect(events.at(-1)).toBe('job.completed');
    expect(events.slice(2, -1).every((type: string) => type === 'job.progress')).toBe(true);
  });

  it('retries a failing job with its backoff and records each failed attempt', async () => {
    const created = (await call(t, 'POST', '/jobs', { name: 'flaky', input: { succeedOn: 3 } })).body.job;
    expect(created.maxAttempts).toBe(3);
    const done = (await call(t, 'GET', `/jobs/${created.id}/wait`)).body.job;
    expect(done).toMatchObject({
      state: 'completed',
      attempt: 3,
      result: { succeededOn: 3 },
      error: { code: 'flaky_failure', message: 'attempt 2 fails', attempt: 2 },
    });
    expect(done.attempts.map((a: any) => a.error?.code ?? 'ok')).toEqual(['flaky_failure', 'flaky_failure', 'ok']);
    // The fixed 50 ms backoff separates the end of one attempt from the start of the next.
    for (let i = 1; i < 3; i++) expect(Date.parse(done.attempts[i].startedAt) - Date.parse(done.attempts[i - 1].finishedAt)).toBeGreaterThanOrEqual(45);
  });

  it('fails a job once its attempts are spent', async () => {
    const created = (await call(t, 'POST', '/jobs', { name: 'flaky', input: { succeedOn: 9 } })).body.job;
    const done = (await call(t, 'GET', `/jobs/${created.id}/wait`)).body.job;
    expect(done).toMatchObject({ state: 'failed', attempt: 3, error: { code: 'flaky_failure', message: 'attempt 3 fails', attempt: 3 } });
    expect(done.finishedAt).toEqual(expect.any(String));
  });

  it('times out an attempt, aborting its signal, and retries it', async () => {
    const created = (await call(t, 'POST', '/jobs', { name: 'slow', input: { ms: 5000 } })).body.job;
    const started = Date.now();
    const done = (await call(t, 'GET', `/jobs/${created.id}/wait`)).body.job;
    expect(done).toMatchObject({ state: 'failed', attempt: 2, error: { code: 'timeout', message: 'The attempt exceeded timeoutMs (100 ms).' } });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('releases the slot of a job that ignores its timeout, and fails it', async () => {
    const created = (await call(t, 'POST', '/jobs', { name: 'stubborn', input: { ms: 400 } })).body.job;
    const done = (await call(t, 'GET', `/jobs/${created.id}/wait`)).body.job;
    expect(done).toMatchObject({ state: 'failed', error: { code: 'timeout' } });
    expect(done.result).toBeUndefined();
  });

  it('cancels a queued job at once and a running one through its signal', async () => {
    // Two sleep slots: fill them, then a third waits in the queue.
    const a = (await call(t, 'POST', '/jobs', { name: 'sleep', input: { ms: 3000 } })).body.job;
    const b = (await call(t, 'POST', '/jobs', { name: 'sleep', input: { ms: 3000 } })).body.job;
    const c = (await call(t, 'POST', '/jobs', { name: 'sleep', input: { ms: 3000 } })).body.job;
    await until('two running', async () => ((await call(t, 'GET', `/jobs?state=running&name=sleep`)).body.jobs.length === 2 ? true : undefined));
    expect((await call(t, 'GET', `/jobs/${c.id}`)).body.job.state).toBe('queued');
    const cancelledQueued = await call(t, 'POST', `/jobs/${c.id}/cancel`);
    expect(cancelledQueued.body.job).toMatchObject({ state: 'cancelled', attempt: 0, cancelRequested: true });
    const before = Date.now();
    const cancelledRunning = await call(t, 'POST', `/jobs/${a.id}/cancel`);
    expect(cancelledRunning.body.job).toMatchObject({ state: 'cancelled', attempt: 1, cancelRequested: true });
    expect(Date.now() - before).toBeLessThan(1000);
    await call(t, 'POST', `/jobs/${b.id}/cancel`);
    expect((await call(t, 'GET', `/runs/${a.id}`)).body.value).toBeNull();
  });

  it("holds to each name's concurrency", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await call(t, 'POST', '/jobs', { name: 'sleep', input: { ms: 60 } })).body.job.id);
    let most = 0;
    await until('all done', async () => {
      const running = (await call(t, 'GET', '/jobs?state=running&name=sleep')).body.jobs.length;
      most = Math.max(most, running);
      const states = await Promise.all(ids.map(async (id) => (await call(t, 'GET', `/jobs/${id}`)).body.job.state));
      return states.every((s) => s === 'completed') ? true : undefined;
    });
    expect(most).toBeLessThanOrEqual(2);
    expect(most).toBeGreaterThanOrEqual(1);
  });

  it('makes enqueueing idempotent with a key, across any state by default and among active jobs with keyScope active', async () => {
    const first = (await call(t, 'POST', '/jobs', { name: 'sleep', input: { ms: 10 }, key: 'ticket-42' })).body.job;
    const again = await Promise.all([1, 2, 3].map(() => call(t, 'POST', '/jobs', { name: 'sleep', input: { ms: 10 }, key: 'ticket-42' })));
    for (const a of again) expect(a.body.job.id).toBe(first.id);
    await call(t, 'GET', `/jobs/${first.id}/wait`);
    expect((await call(t, 'POST', '/jobs', { name: 'sleep', input: { ms: 10 }, key: 'ticket-42' })).body.job).toMatchObject({
      id: first.id,
      state: 'completed',
    });
    const fresh = (await call(t, 'POST', '/jobs', { name: 'sleep', input: { ms: 10 }, key: 'ticket-42', keyScope: 'active' })).body.job;
    expect(fresh.id).not.toBe(first.id);
    expect(fresh.state).toBe('queued');
  });

  it('scopes an idempotency key to its tenant: two tenants with one key get a job each, and each redelivery finds its own', async () => {
    const enqueue = (tenant: string) => call(t, 'POST', '/jobs', { name: 'sleep', input: { ms: 10 }, key: 'ticket-7', tenant });
    const a = (await enqueue('acme')).body.job;
    const b = (await enqueue('globex')).body.job;
    expect(a.id).not.toBe(b.id);
    expect([a.tenant, b.tenant]).toEqual(['acme', 'globex']);
    expect((await enqueue('acme')).body.job.id).toBe(a.id);
    expect((await enqueue('globex')).body.job.id).toBe(b.id);
  });

  it('pages the list newest first with a cursor', async () => {
    const page1 = (await call(t, 'GET', '/jobs?limit=3')).body;
    expect(page1.jobs).toHaveLength(3);
    expect(page1.next).toBe(page1.jobs[2].id);
    const page2 = (await call(t, 'GET', `/jobs?limit=3&cursor=${page1.next}`)).body;
    expect(page2.jobs[0].id < page1.jobs[2].id).toBe(true);
    const ids = [...page1.jobs, ...page2.jobs].map((j: any) => j.id);
    expect([...ids].sort().reverse()).toEqual(ids);
  });

  it('answers 404 job_not_found for an unknown job', async () => {
    expect(await call(t, 'GET', '/jobs/job_nope')).toEqual({
      status: 404,
      body: { ok: false, error: { code: 'job_not_found', message: 'No job "job_nope".', details: { id: 'job_nope' } } },
    });
  });

  it("streams a job's events over SSE until its final state", async () => {
    const created = (await call(t, 'POST', '/jobs', { name: 'sleep', input: { ms: 60 } })).body.job;
    const res = await fetch(`${t.url()}/jobs/${created.id}/events`);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const text = await res.text();
    const types = [...text.matchAll(/^event: (.+)$/gm)].map((m) => m[1]);
    expect(types[0]).toBe('job.queued');
    expect(types.at(-1)).toBe('job.completed');
    const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });
});

describe('ctx.jobs schedules', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ listeners: [{ name: 'main', port: 0, plugins: ['worker'] }], plugins: { worker } });
  });
  afterAll(() => t.stop());

  it('refuses a bad cadence with 400 invalid_schedule saying what is wrong', async () => {
    const bad = async (spec: object) => (await call(t, 'POST', '/schedules', { id: 'x', spec, jobName: 'tick' })).body.error;
    expect(await bad({})).toMatchObject({ code: 'invalid_schedule', message: 'A schedule needs "cron" (such as "0 3 * * *") or "interval" (such as "6h").' });
    expect(await bad({ cron: '* * * * *', interval: '1h' })).toMatchObject({
      code: 'invalid_schedule',
      message: 'Give either "cron" or "interval", not both.',
    });
    expect(await bad({ interval: '5 minutes' })).toMatchObject({ code: 'invalid_schedule', details: { issues: [{ path: 'interval' }] } });
    expect(await bad({ interval: '100ms' })).toMatchObject({ code: 'invalid_schedule', message: 'An interval must be at least 1s, got 100ms.' });
    expect(await bad({ cron: 'every day' })).toMatchObject({ code: 'invalid_schedule', details: { issues: [{ path: 'cron' }] } });
    expect(await bad({ cron: '0 3 * * *', timezone: 'Mars/Olympus' })).toMatchObject({ code: 'invalid_schedule', details: { issues: [{ path: 'timezone' }] } });
  });

  it('runs an interval schedule on its grid, never overlapping itself, and records skipped ticks', async () => {
    // Each run takes 2.5 s on a 1 s grid: ticks while it runs are skipped.
    const created = await call(t, 'POST', '/schedules', { id: 'slowtick', spec: { interval: '1s' }, jobName: 'tick', input: { ms: 2500 } });
    expect(created.status).toBe(201);
    expect(created.body.schedule).toMatchObject({ id: 'slowtick', interval: '1s', intervalMs: 1000, catchUp: 'once', paused: false, skippedTicks: 0 });
    const next = Date.parse(created.body.schedule.nextRunAt);
    expect(next - Date.parse(created.body.schedule.createdAt)).toBe(1000);
    const skipped = await until(
      'a skipped tick',
      async () => {
        const s = (await call(t, 'GET', '/schedules/slowtick')).body.schedule;
        return s.skippedTicks >= 1 ? s : undefined;
      },
      8000,
    );
    expect(skipped.lastJobId).toEqual(expect.any(String));
    const running = (await call(t, 'GET', '/jobs?name=tick&state=running')).body.jobs.filter((j: any) => j.scheduleId === 'slowtick');
    expect(running.length).toBeLessThanOrEqual(1);
    await call(t, 'DELETE', '/schedules/slowtick');
  });

  it('runs a schedule now on demand, and answers with the running job instead of starting a second one', async () => {
    await call(t, 'POST', '/schedules', { id: 'manual', spec: { cron: '0 0 1 1 *' }, jobName: 'tick', input: { ms: 400 } });
    const first = (await call(t, 'POST', '/schedules/manual/run')).body.run;
    expect(first).toMatchObject({ started: true, job: { name: 'tick', scheduleId: 'manual', state: 'queued' } });
    const second = (await call(t, 'POST', '/schedules/manual/run')).body.run;
    expect(second).toMatchObject({ started: false, job: { id: first.job.id } });
    await call(t, 'GET', `/jobs/${first.job.id}/wait`);
    const third = (await call(t, 'POST', '/schedules/manual/run')).body.run;
    expect(third.started).toBe(true);
    expect(third.job.id).not.toBe(first.job.id);
    const schedule = (await call(t, 'GET', '/schedules/manual')).body.schedule;
    expect(schedule).toMatchObject({ cron: '0 0 1 1 *', lastJobId: third.job.id });
    expect(new Date(schedule.nextRunAt).getUTCMonth()).toBe(0);
  });

  it('pauses and resumes a schedule, and changes its cadence', async () => {
    await call(t, 'POST', '/schedules', { id: 'pausable', spec: { interval: '1h' }, jobName: 'tick' });
    const paused = (await call(t, 'PATCH', '/schedules/pausable', { paused: true })).body.schedule;
    expect(paused).toMatchObject({ paused: true, nextRunAt: null });
    const resumed = (await call(t, 'PATCH', '/schedules/pausable', { paused: false, interval: '2h' })).body.schedule;
    expect(resumed).toMatchObject({ paused: false, interval: '2h', intervalMs: 7_200_000 });
    expect(Date.parse(resumed.nextRunAt)).toBeGreaterThan(Date.now() + 3_600_000);
    const cron = (await call(t, 'PATCH', '/schedules/pausable', { cron: '30 4 * * *', timezone: 'Europe/Paris' })).body.schedule;
    expect(cron).toMatchObject({ cron: '30 4 * * *', timezone: 'Europe/Paris' });
    expect(cron.interval).toBeUndefined();
    expect((await call(t, 'DELETE', '/schedules/pausable')).body).toEqual({ ok: true, deleted: true });
    expect((await call(t, 'GET', '/schedules/pausable')).status).toBe(404);
  });
});

describe('cadence and backoff arithmetic', () => {
  it('parses intervals with units and keeps ticks on the grid from the anchor', () => {
    expect(parseInterval('15m')).toEqual({ text: '15m', ms: 900_000 });
    expect(parseInterval('1d')).toEqual({ text: '1d', ms: 86_400_000 });
    expect(parseInterval(5000)).toEqual({ text: '5000ms', ms: 5000 });
    const cadence = parseCadence({ interval: '10s' });
    const anchor = new Date('2026-01-01T00:00:00Z');
    expect(cadence.next(new Date('2026-01-01T00:00:25Z'), anchor).toISOString()).toBe('2026-01-01T00:00:30.000Z');
    expect(cadence.next(new Date('2026-01-01T00:00:30Z'), anchor).toISOString()).toBe('2026-01-01T00:00:40.000Z');
    expect(cadence.next(new Date('2025-12-31T00:00:00Z'), anchor).toISOString()).toBe('2026-01-01T00:00:00.000Z');
  });

  it('computes cron ticks in UTC by default and in the given time zone', () => {
    const utc = parseCadence({ cron: '0 3 * * *' });
    expect(utc.next(new Date('2026-03-01T02:00:00Z'), new Date()).toISOString()).toBe('2026-03-01T03:00:00.000Z');
    const paris = parseCadence({ cron: '0 3 * * *', timezone: 'Europe/Paris' });
    // 03:00 in Paris is 02:00 UTC in winter (CET) and 01:00 UTC in summer (CEST).
    expect(paris.next(new Date('2026-01-10T00:00:00Z'), new Date()).toISOString()).toBe('2026-01-10T02:00:00.000Z');
    expect(paris.next(new Date('2026-07-10T00:00:00Z'), new Date()).toISOString()).toBe('2026-07-10T01:00:00.000Z');
  });

  it('backs off exponentially within ±20% and caps the delay', () => {
    expect(retryDelayMs(1, { delayMs: 1000 }, () => 0.5)).toBe(1000);
    expect(retryDelayMs(3, { delayMs: 1000 }, () => 0.5)).toBe(4000);
    expect(retryDelayMs(3, { delayMs: 1000 }, () => 0)).toBe(3200);
    expect(retryDelayMs(3, { delayMs: 1000 }, () => 1)).toBe(4800);
    expect(retryDelayMs(30, { delayMs: 1000, maxDelayMs: 60_000 }, () => 0.5)).toBe(60_000);
    expect(retryDelayMs(5, { type: 'fixed', delayMs: 250 })).toBe(250);
  });
});
