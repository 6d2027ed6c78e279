import { Cron } from 'croner';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/app.js';
import { html, TestSite } from './site.js';
import { call, createSchedule, fast, getJob, runNow, startCrawler, waitForJob, type CrawlerApp } from './support.js';

const site = new TestSite();
let t: CrawlerApp;

beforeAll(async () => {
  await site.start();
  site.set('/', html('Home', 'welcome', ['/a', '/b']));
  site.set('/a', html('A', 'alpha'));
  site.set('/b', html('B', 'beta'));
  // A slow corner of the site: each page takes 400 ms, so a crawl of it lasts a while.
  site.set('/slow/', html('Slow', 'slow start', ['/slow/1', '/slow/2', '/slow/3', '/slow/4', '/slow/5']));
  for (let i = 1; i <= 5; i++) site.set(`/slow/${i}`, { body: html(`Slow ${i}`, 'slow page'), delayMs: 400 });
  t = await startCrawler();
});

afterAll(async () => {
  await t?.stop();
  await site.stop();
});

const base = () => ({ name: 'site', config: { seeds: [site.url('/')], ...fast } });

describe('POST /v1/schedules validation', () => {
  const bad = async (body: Record<string, unknown>) => {
    const res = await call('POST', `${t.crawler}/v1/schedules`, body);
    expect(res.status).toBe(400);
    return res.body.error;
  };

  it('refuses both cron and interval, and neither, saying which', async () => {
    expect(await bad({ ...base(), cron: '0 3 * * *', interval: '1h' })).toMatchObject({
      code: 'invalid_schedule',
      message: 'Give either "cron" or "interval", not both.',
    });
    expect(await bad(base())).toMatchObject({
      code: 'invalid_schedule',
      message: 'A schedule needs "cron" (such as "0 3 * * *") or "interval" (such as "6h").',
    });
  });

  it('refuses an invalid cron expression or interval with what is wrong', async () => {
    const cron = await bad({ ...base(), cron: 'every day' });
    expect(cron.code).toBe('invalid_schedule');
    expect(cron.message).toMatch(/^"every day" is not a valid cron expression/);
    expect(await bad({ ...base(), interval: '5 minutes' })).toMatchObject({
      code: 'invalid_schedule',
      message: '"5 minutes" is not an interval: write a whole number and a unit, such as "30s", "15m", "6h" or "1d" (units ms, s, m, h, d).',
    });
    expect(await bad({ ...base(), cron: '0 3 * * *', timezone: 'Mars/Olympus' })).toMatchObject({
      code: 'invalid_schedule',
      details: { issues: [{ path: 'timezone' }] },
    });
  });

  it('refuses missing or non-http(s) seeds and a maxPages that is not a positive integer', async () => {
    const missing = await bad({ name: 'x', interval: '1h', config: {} });
    expect(missing).toMatchObject({
      code: 'validation_failed',
      details: { issues: [{ path: 'body.config.seeds', message: 'config.seeds is required: an array of http(s) URLs to start from' }] },
    });
    const noConfig = await bad({ name: 'x', interval: '1h' });
    expect(noConfig.details.issues[0].path).toBe('body.config');
    expect(await bad({ name: 'x', interval: '1h', config: { seeds: [] } })).toMatchObject({
      details: { issues: [{ message: 'config.seeds needs at least one http(s) URL' }] },
    });
    const ftp = await bad({ name: 'x', interval: '1h', config: { seeds: [site.url('/'), 'ftp://example.com/file'] } });
    expect(ftp).toMatchObject({
      code: 'validation_failed',
      details: { issues: [{ path: 'body.config.seeds[1]', message: '"ftp://example.com/file" is not an absolute http(s) URL' }] },
    });
    expect((await bad({ name: 'x', interval: '1h', config: { seeds: ['/relative'] } })).message).toContain('"/relative" is not an absolute http(s) URL');
    for (const maxPages of [0, -3, 2.5, '10']) {
      const err = await bad({ name: 'x', interval: '1h', config: { seeds: [site.url('/')], maxPages } });
      expect(err.details.issues).toEqual([
        { path: 'body.config.maxPages', message: `maxPages must be a positive integer, got ${JSON.stringify(maxPages)}`, code: expect.any(String) },
      ]);
    }
  });

  it('refuses autoIndex without an index', async () => {
    const err = await bad({ ...base(), interval: '1h', autoIndex: { enabled: true } });
    expect(err.details.issues).toEqual([
      expect.objectContaining({ path: 'body.autoIndex.index', message: 'autoIndex.index is required when autoIndex is enabled' }),
    ]);
  });

  it('refuses private seeds and engine URLs unless the crawler options allow them', async () => {
    const strict = await startCrawler({});
    try {
      const seed = await call('POST', `${strict.crawler}/v1/schedules`, { ...base(), interval: '1h' });
      expect(seed.status).toBe(403);
      expect(seed.body.error).toMatchObject({ code: 'seed_not_allowed', details: { url: site.url('/'), reason: 'private_address' } });
      const engine = await call('POST', `${strict.crawler}/v1/schedules`, {
        name: 'x',
        interval: '1h',
        config: { seeds: ['https://example.com/'] },
        autoIndex: { index: 'web', engineUrl: 'http://127.0.0.1:3848' },
      });
      expect(engine.status).toBe(403);
      expect(engine.body.error.code).toBe('index_url_not_allowed');
      expect((await call('GET', `${strict.crawler}/v1/schedules`)).body.schedules).toEqual([]);
    } finally {
      await strict.stop();
    }
  });
});

describe('schedules', () => {
  it("creates a cron schedule (201 {ok, id, nextRunAt}) whose next run is the cron's next tick", async () => {
    const before = new Date();
    const res = await call('POST', `${t.crawler}/v1/schedules`, { ...base(), cron: '15 3 * * *' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ ok: true, id: expect.stringMatching(/^sch_/), nextRunAt: expect.any(String) });
    const expected = new Cron('15 3 * * *', { utcOffset: 0, paused: true }).nextRun(before)!;
    expect(res.body.nextRunAt).toBe(expected.toISOString());
    expect(new Date(res.body.nextRunAt).getUTCHours()).toBe(3);
    const zoned = await call('POST', `${t.crawler}/v1/schedules`, { ...base(), cron: '0 9 * * 1', timezone: 'America/New_York' });
    const expectedZoned = new Cron('0 9 * * 1', { timezone: 'America/New_York', paused: true }).nextRun(new Date())!;
    expect(zoned.body.nextRunAt).toBe(expectedZoned.toISOString());
    await call('DELETE', `${t.crawler}/v1/schedules/${res.body.id}`);
    await call('DELETE', `${t.crawler}/v1/schedules/${zoned.body.id}`);
  });

  it('lists interval schedules with their frequency, next run on the creation grid, last run and pause state', async () => {
    const id = await createSchedule(t, { ...base(), interval: '6h' });
    const list = (await call('GET', `${t.crawler}/v1/schedules`)).body;
    expect(list.ok).toBe(true);
    const schedule = list.schedules.find((s: any) => s.id === id);
    expect(schedule).toMatchObject({ id, name: 'site', interval: '6h', paused: false, lastRun: null, lastRunAt: null, skippedTicks: 0, catchUp: 'once' });
    expect(schedule.cron).toBeUndefined();
    expect(Date.parse(schedule.nextRunAt) - Date.parse(schedule.createdAt)).toBe(6 * 3600 * 1000);
    expect(schedule.config).toMatchObject({ seeds: [site.url('/')], maxPages: 100, maxDepth: 5, sameOrigin: true, perHostConcurrency: 1 });

    const jobId = await runNow(t, id);
    await waitForJob(t, jobId);
    const after = (await call('GET', `${t.crawler}/v1/schedules/${id}`)).body.schedule;
    expect(after.lastRun).toMatchObject({ id: jobId, state: 'completed', counts: { fetched: 3, failed: 0 } });
    expect(after.lastRunAt).toEqual(expect.any(String));
    // Running by hand does not move the timer.
    expect(after.nextRunAt).toBe(schedule.nextRunAt);
    await call('DELETE', `${t.crawler}/v1/schedules/${id}`);
  });

  it('runs now, and while that run is in progress answers with the same jobId instead of a second run', async () => {
    const id = await createSchedule(t, { name: 'slow', cron: '0 0 1 1 *', config: { seeds: [site.url('/slow/')], ...fast } });
    const first = await call('POST', `${t.crawler}/v1/schedules/${id}/run`);
    expect(first).toEqual({ status: 200, body: { ok: true, jobId: expect.stringMatching(/^job_/), started: true } });
    await waitForJob(t, first.body.jobId, (j) => j.state === 'running');
    const second = await call('POST', `${t.crawler}/v1/schedules/${id}/run`);
    expect(second).toEqual({ status: 200, body: { ok: true, jobId: first.body.jobId, started: false } });
    const done = await waitForJob(t, first.body.jobId);
    expect(done).toMatchObject({ state: 'completed', scheduleId: id, counts: { fetched: 9, indexed: 0, failed: 0 } });
    const third = await call('POST', `${t.crawler}/v1/schedules/${id}/run`);
    expect(third.body.started).toBe(true);
    expect(third.body.jobId).not.toBe(first.body.jobId);
    await waitForJob(t, third.body.jobId);
    const jobs = (await call('GET', `${t.crawler}/v1/jobs?schedule=${id}`)).body.jobs;
    expect(jobs.map((j: any) => j.id)).toEqual([third.body.jobId, first.body.jobId]);
    await call('DELETE', `${t.crawler}/v1/schedules/${id}`);
  });

  it('pauses, resumes and changes a schedule with PATCH', async () => {
    const id = await createSchedule(t, { ...base(), interval: '1h' });
    const paused = (await call('PATCH', `${t.crawler}/v1/schedules/${id}`, { paused: true })).body.schedule;
    expect(paused).toMatchObject({ id, paused: true, nextRunAt: null, interval: '1h' });
    expect((await call('GET', `${t.crawler}/v1/schedules`)).body.schedules.find((s: any) => s.id === id).paused).toBe(true);
    const resumed = (await call('PATCH', `${t.crawler}/v1/schedules/${id}`, { paused: false, interval: '2h', name: 'renamed' })).body.schedule;
    expect(resumed).toMatchObject({ paused: false, interval: '2h', name: 'renamed' });
    expect(Date.parse(resumed.nextRunAt) - Date.parse(resumed.createdAt)).toBe(2 * 3600 * 1000);
    const cron = (await call('PATCH', `${t.crawler}/v1/schedules/${id}`, { cron: '30 4 * * *', config: { seeds: [site.url('/a')], maxPages: 7 } })).body
      .schedule;
    expect(cron).toMatchObject({ cron: '30 4 * * *', config: { seeds: [site.url('/a')], maxPages: 7 } });
    expect(cron.interval).toBeUndefined();
    const badPatch = await call('PATCH', `${t.crawler}/v1/schedules/${id}`, { interval: 'soon' });
    expect(badPatch.status).toBe(400);
    expect(badPatch.body.error.code).toBe('invalid_schedule');
    const both = await call('PATCH', `${t.crawler}/v1/schedules/${id}`, { interval: '1h', cron: '* * * * *' });
    expect(both.body.error.message).toBe('Give either "cron" or "interval", not both.');
    expect((await call('PATCH', `${t.crawler}/v1/schedules/nope`, { paused: true })).status).toBe(404);
    await call('DELETE', `${t.crawler}/v1/schedules/${id}`);
  });

  it('cancels a running crawl; the job ends cancelled with what it had done', async () => {
    const id = await createSchedule(t, { name: 'slow', cron: '0 0 1 1 *', config: { seeds: [site.url('/slow/')], ...fast } });
    const jobId = await runNow(t, id);
    await waitForJob(t, jobId, (j) => j.counts.fetched >= 2);
    const res = await call('POST', `${t.crawler}/v1/jobs/${jobId}/cancel`);
    expect(res.status).toBe(200);
    expect(res.body.job).toMatchObject({ id: jobId, state: 'cancelled' });
    const job = await getJob(t, jobId);
    expect(job.state).toBe('cancelled');
    expect(job.counts.fetched).toBeGreaterThanOrEqual(2);
    expect(job.counts.fetched).toBeLessThan(9);
    expect((await call('POST', `${t.crawler}/v1/jobs/job_unknown/cancel`)).body.error.code).toBe('job_not_found');
    await call('DELETE', `${t.crawler}/v1/schedules/${id}`);
  });

  it('deletes a schedule (404 afterwards) and keeps its jobs in the history', async () => {
    const id = await createSchedule(t, { ...base(), interval: '1h' });
    const jobId = await runNow(t, id);
    await waitForJob(t, jobId);
    expect(await call('DELETE', `${t.crawler}/v1/schedules/${id}`)).toEqual({ status: 200, body: { ok: true, deleted: true, id } });
    expect((await call('GET', `${t.crawler}/v1/schedules/${id}`)).body.error).toMatchObject({ code: 'schedule_not_found' });
    expect((await call('POST', `${t.crawler}/v1/schedules/${id}/run`)).status).toBe(404);
    expect((await call('DELETE', `${t.crawler}/v1/schedules/${id}`)).status).toBe(404);
    expect((await getJob(t, jobId)).state).toBe('completed');
  });

  it('never overlaps a schedule with itself: ticks during a run are skipped and recorded', async () => {
    const id = await createSchedule(t, { name: 'tick', interval: '1s', config: { seeds: [site.url('/slow/')], ...fast } });
    const seenRunning = new Set<number>();
    const until = Date.now() + 3200;
    while (Date.now() < until) {
      const jobs = (await call('GET', `${t.crawler}/v1/jobs?schedule=${id}`)).body.jobs;
      seenRunning.add(jobs.filter((j: any) => j.state === 'running' || j.state === 'queued').length);
      await new Promise((r) => setTimeout(r, 100));
    }
    await call('PATCH', `${t.crawler}/v1/schedules/${id}`, { paused: true });
    expect(Math.max(...seenRunning)).toBe(1);
    const schedule = (await call('GET', `${t.crawler}/v1/schedules/${id}`)).body.schedule;
    expect(schedule.skippedTicks).toBeGreaterThanOrEqual(1);
    expect(schedule.lastSkippedAt).toEqual(expect.any(String));
    const jobs = (await call('GET', `${t.crawler}/v1/jobs?schedule=${id}`)).body.jobs;
    for (const job of jobs) if (job.state === 'running') await call('POST', `${t.crawler}/v1/jobs/${job.id}/cancel`);
    await call('DELETE', `${t.crawler}/v1/schedules/${id}`);
  });
});

describe('OpenAPI', () => {
  it("documents the crawler's routes with their schemas", async () => {
    const doc = (await call('GET', `${t.crawler}/openapi.json`)).body;
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/v1/schedules',
        '/v1/schedules/{id}',
        '/v1/schedules/{id}/run',
        '/v1/jobs',
        '/v1/jobs/{jobId}',
        '/v1/jobs/{jobId}/events',
        '/v1/jobs/{jobId}/cancel',
      ]),
    );
    const create = doc.paths['/v1/schedules'].post;
    expect(Object.keys(create.responses)).toContain('201');
    const body = create.requestBody.content['application/json'].schema;
    expect(JSON.stringify(body)).toContain('seeds');
  });
});

describe('schedules across a restart', () => {
  it('keep their ids and settings, run a missed tick once (catchUp once) or skip it, and resume the run the stop cut short', async () => {
    const dataDir = tempDir('tessera-crawler-restart-');
    let app = await startCrawler({ allowPrivateAddresses: true }, { dataDir });
    try {
      const once = await createSchedule(app, { name: 'once', interval: '10s', catchUp: 'once', config: { seeds: [site.url('/')], ...fast } });
      const skip = await createSchedule(app, { name: 'skip', interval: '10s', catchUp: 'skip', config: { seeds: [site.url('/')], ...fast } });
      const manual = await createSchedule(app, { name: 'slow', cron: '0 0 1 1 *', config: { seeds: [site.url('/slow/')], ...fast } });
      const created = (await call('GET', `${app.crawler}/v1/schedules/${skip}`)).body.schedule;
      const slowHits = () => site.hits.filter((h) => h.path.startsWith('/slow/')).map((h) => h.path);
      const hitsBefore = slowHits().length;
      const interrupted = await runNow(app, manual);
      await waitForJob(app, interrupted, (j) => j.counts.fetched >= 2);
      // Stopped while the slow crawl runs and before either interval schedule first fires (10 s
      // leaves room for a loaded machine to get this far).
      await app.stop();
      expect(Date.now()).toBeLessThan(Date.parse(created.createdAt) + 10_000);
      const firstTick = Date.parse(created.createdAt) + 10_000;
      await new Promise((r) => setTimeout(r, Math.max(0, firstTick - Date.now() + 300)));

      app = await startCrawler({ allowPrivateAddresses: true }, { dataDir });
      const schedules = (await call('GET', `${app.crawler}/v1/schedules`)).body.schedules;
      expect(schedules.map((s: any) => s.id).sort()).toEqual([once, skip, manual].sort());
      const skipped = schedules.find((s: any) => s.id === skip);
      // Skipped: straight to the next tick on the grid, no run.
      expect(skipped.nextRunAt).toBe(new Date(Date.parse(created.createdAt) + 20_000).toISOString());
      expect((await call('GET', `${app.crawler}/v1/jobs?schedule=${skip}`)).body.jobs).toEqual([]);
      // Once: the missed tick runs at start.
      // (fired just after start, beside the resumed run: it may take a moment to be listed)
      let caughtUp: any[] = [];
      for (const until = Date.now() + 5000; caughtUp.length === 0 && Date.now() < until; await new Promise((r) => setTimeout(r, 50)))
        caughtUp = (await call('GET', `${app.crawler}/v1/jobs?schedule=${once}`)).body.jobs;
      expect(caughtUp).toHaveLength(1);
      expect((await waitForJob(app, caughtUp[0].id)).state).toBe('completed');
      // The run cut short by the stop carries on from where it stopped (a clean stop saves the
      // frontier): its counts carry on, and only the request in flight at the stop is made again.
      const job = await waitForJob(app, interrupted, (j) => j.state === 'completed', 30_000);
      // /slow/, its five pages, and the home page with its two that the navigation links to.
      expect(job).toMatchObject({ scheduleId: manual, counts: { fetched: 9, indexed: 0, failed: 0 }, progress: { pages: 9 } });
      const hits = slowHits().slice(hitsBefore);
      expect(hits.filter((p) => p === '/slow/')).toHaveLength(1);
      expect(hits.length).toBeGreaterThanOrEqual(6);
      expect(hits.length).toBeLessThanOrEqual(7);
      expect(new Set(hits).size).toBe(6);
      // A run of the schedule is a new job.
      const again = await runNow(app, manual);
      expect(again).not.toBe(interrupted);
      await call('PATCH', `${app.crawler}/v1/schedules/${once}`, { paused: true });
      await call('PATCH', `${app.crawler}/v1/schedules/${skip}`, { paused: true });
      await call('POST', `${app.crawler}/v1/jobs/${again}/cancel`);
    } finally {
      await app.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 90_000);
});
