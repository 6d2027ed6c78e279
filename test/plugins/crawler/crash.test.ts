import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/app.js';
import { listeningUrls, runCli, type CliProcess } from '../../helpers/cli.js';
import { html, TestSite } from './site.js';
import { call, fast, getJob, runNow, waitForJob, type CrawlerApp } from './support.js';

describe('a crawl cut short by a crash (kill -9)', () => {
  const site = new TestSite();
  const dir = tempDir('tessera-crawler-crash-');
  const running: CliProcess[] = [];
  afterAll(async () => {
    for (const cli of running) cli.child.kill('SIGKILL');
    await site.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is failed with reason interrupted at the next start, and its schedule goes on', async () => {
    await site.start();
    site.set('/', html('Start', 'start page', ['/1', '/2', '/3', '/4']));
    for (let i = 1; i <= 4; i++) site.set(`/${i}`, { body: html(`Page ${i}`, 'slow page'), delayMs: 500 });
    const manifest = path.join(dir, 'manifest.json');
    writeFileSync(
      manifest,
      JSON.stringify({
        name: 'crawler-crash',
        dataDir: './data',
        listeners: [{ name: 'crawler', port: 0, plugins: ['crawler'] }],
        plugins: { search: {}, crawler: { options: { allowPrivateAddresses: true } } },
      }),
    );
    const first = runCli(['serve', '--manifest', manifest]);
    running.push(first);
    const app = { crawler: (await listeningUrls(first, 1)).crawler } as CrawlerApp;
    const created = await call('POST', `${app.crawler}/v1/schedules`, {
      name: 'crash',
      cron: '0 0 1 1 *',
      config: { seeds: [site.url('/')], ...fast },
      autoIndex: { index: 'crash' },
    });
    expect(created.status).toBe(201);
    const jobId = await runNow(app, created.body.id);
    await waitForJob(app, jobId, (j) => j.state === 'running' && j.counts.fetched >= 1);
    first.child.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');

    const second = runCli(['serve', '--manifest', manifest]);
    running.push(second);
    const again = { crawler: (await listeningUrls(second, 1)).crawler } as CrawlerApp;
    const job = await getJob(again, jobId);
    expect(job).toMatchObject({ id: jobId, state: 'failed', reason: 'interrupted', scheduleId: created.body.id });
    const schedule = (await call('GET', `${again.crawler}/v1/schedules/${created.body.id}`)).body.schedule;
    expect(schedule.lastRun).toMatchObject({ id: jobId, state: 'failed', reason: 'interrupted' });
    const next = await runNow(again, created.body.id);
    expect(next).not.toBe(jobId);
    expect(await waitForJob(again, next)).toMatchObject({ state: 'completed', counts: { fetched: 5, failed: 0 } });
    second.child.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
  });
});
