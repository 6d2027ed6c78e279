import { createHash } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/app.js';
import { listeningUrls, runCli, type CliProcess } from '../../helpers/cli.js';
import { html, TestSite } from './site.js';
import { call, docCount, fast, runNow, waitForJob, type CrawlerApp } from './support.js';

const PAGES = 16;
const BATCH = 2;
const paths = ['/', ...Array.from({ length: PAGES }, (_, i) => `/p/${i + 1}`)];
const id = (url: string) => createHash('sha256').update(url).digest('hex').slice(0, 32);

describe('a crawl cut short by a crash (kill -9)', () => {
  const site = new TestSite();
  const dir = tempDir('tessera-crawler-crash-');
  const running: CliProcess[] = [];
  afterAll(async () => {
    for (const cli of running) cli.child.kill('SIGKILL');
    await site.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const serve = async (manifest: string): Promise<CrawlerApp> => {
    const cli = runCli(['serve', '--manifest', manifest]);
    running.push(cli);
    const urls = await listeningUrls(cli, 2);
    return { crawler: urls.crawler, search: urls.search, cli } as unknown as CrawlerApp;
  };

  it('resumes from its last checkpoint: the job completes, every page is indexed once, pages fetched before the crash are not all fetched again', async () => {
    await site.start();
    site.set('/', html('Start', 'start page', paths.slice(1)));
    for (let i = 1; i <= PAGES; i++) site.set(`/p/${i}`, { body: html(`Page ${i}`, `page number ${i}`), delayMs: 100 });
    const manifest = path.join(dir, 'manifest.json');
    writeFileSync(
      manifest,
      JSON.stringify({
        name: 'crawler-crash',
        dataDir: './data',
        listeners: [
          { name: 'search', port: 0, plugins: ['search'] },
          { name: 'crawler', port: 0, plugins: ['crawler'] },
        ],
        // A checkpoint every two pages: a crash loses at most those and the one in flight.
        plugins: { search: {}, crawler: { options: { allowPrivateAddresses: true, batchDocs: BATCH } } },
      }),
    );
    const first = await serve(manifest);
    const created = await call('POST', `${first.crawler}/v1/schedules`, {
      name: 'crash',
      cron: '0 0 1 1 *',
      config: { seeds: [site.url('/')], ...fast, concurrency: 1 },
      autoIndex: { index: 'crash' },
    });
    expect(created.status).toBe(201);
    const jobId = await runNow(first, created.body.id);
    await waitForJob(first, jobId, (j) => j.state === 'running' && j.counts.fetched >= 8);
    const killed = (first as unknown as { cli: CliProcess }).cli;
    killed.child.kill('SIGKILL');
    expect((await killed.exited).signal).toBe('SIGKILL');
    const before = new Set(site.hits.filter((h) => h.path !== '/robots.txt').map((h) => h.path));
    expect(before.size).toBeGreaterThanOrEqual(8);
    expect(before.size).toBeLessThan(paths.length);
    const hitsBefore = site.hits.length;

    const second = await serve(manifest);
    // The same job carries on (it is not failed, and no new run is needed).
    const job = await waitForJob(second, jobId, (j) => j.state === 'completed');
    expect(job).toMatchObject({
      id: jobId,
      scheduleId: created.body.id,
      state: 'completed',
      counts: { fetched: paths.length, indexed: paths.length, skipped: 0, unchanged: 0, failed: 0, removed: 0 },
      errors: [],
      progress: { pages: paths.length, queued: 0, value: 1 },
    });

    // Every page is in the index exactly once (ids are per URL, and the count matches).
    expect(await docCount(second.search, 'crash')).toBe(paths.length);
    for (const p of paths) {
      const res = await fetch(`${second.search}/v1/indexes/crash/documents/${id(site.url(p))}`);
      expect(res.status, p).toBe(200);
    }

    // Every page was requested; what the crash cost is at most the pages since the last
    // checkpoint and the one in flight, never those a checkpoint recorded.
    const after = site.hits.slice(hitsBefore).filter((h) => h.path !== '/robots.txt');
    const again = after.map((h) => h.path).filter((p) => before.has(p));
    for (const p of paths) expect(site.hitsOf(p).length, p).toBeGreaterThanOrEqual(1);
    expect(new Set(after.map((h) => h.path)).size).toBe(after.length);
    expect(again.length).toBeLessThanOrEqual(BATCH + 1);
    expect(before.size - again.length).toBeGreaterThanOrEqual(5);
    expect(site.hitsOf('/')).toHaveLength(1);

    // The job's feed tells the story: interrupted, started again, completed (where it ends).
    const feed = await (await fetch(`${second.crawler}/v1/jobs/${jobId}/events`)).text();
    const types = [...feed.matchAll(/^event: (.+)$/gm)].map((m) => m[1]);
    expect(types.indexOf('job.interrupted')).toBeGreaterThan(types.indexOf('job.started'));
    expect(types.lastIndexOf('job.started')).toBeGreaterThan(types.indexOf('job.interrupted'));
    expect(types.at(-1)).toBe('job.completed');

    const schedule = (await call('GET', `${second.crawler}/v1/schedules/${created.body.id}`)).body.schedule;
    expect(schedule).toMatchObject({ lastRun: { id: jobId, state: 'completed' }, pagesKnown: paths.length });
    const cli = (second as unknown as { cli: CliProcess }).cli;
    cli.child.kill('SIGTERM');
    expect((await cli.exited).code).toBe(0);
  }, 60_000);
});
