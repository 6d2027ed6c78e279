/**
 * Crawler throughput and memory against a local synthetic site (bench/crawler/site.ts, in its own
 * process), politeness off, feeding the in-process search index:
 *   npm run bench:crawler               (2,000 pages at concurrency 1, 4, 16; then 10,000 pages at 16 for RSS,
 *                                        without and with indexing)
 *   npm run bench:crawler -- --quick    (500 pages each; 2,000 for RSS)
 * Every run is checked before it is timed: each page fetched and indexed once, nothing failed.
 * Prints one JSON line per measurement; the table lives in bench/README.md.
 */
import 'reflect-metadata';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { App } from '../../runtime/app.js';
import { createLogger } from '../../runtime/logger.js';
import { resolveManifest } from '../../runtime/manifest.js';

const quick = process.argv.includes('--quick');
const pagesPerRun = quick ? 500 : 2000;
const rssPages = quick ? 2000 : 10_000;
const here = path.dirname(fileURLToPath(import.meta.url));

async function startSite(pages: number): Promise<{ child: ChildProcess; origin: string }> {
  const child = spawn(process.execPath, [path.join(here, 'site.js'), String(pages)], { stdio: ['ignore', 'ignore', 'pipe'] });
  const port = await new Promise<number>((resolve, reject) => {
    let buffered = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const match = buffered.match(/\{"port":(\d+)\}/);
      if (match) resolve(Number(match[1]));
    });
    child.on('exit', (code) => reject(new Error(`site exited with ${code}: ${buffered}`)));
  });
  return { child, origin: `http://127.0.0.1:${port}` };
}

async function post(url: string, body: unknown): Promise<any> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return res.json();
}

async function main(): Promise<void> {
  const site = await startSite(rssPages);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-bench-crawler-'));
  const manifest = resolveManifest(
    {
      name: 'bench-crawler',
      listeners: [{ name: 'crawler', port: 0, plugins: ['crawler'] }],
      plugins: { search: {}, crawler: { options: { allowPrivateAddresses: true, batchDocs: 500 } } },
    },
    { file: '(bench)', dir: here, dataDir },
  );
  const app = await App.create(manifest, { logger: createLogger({ level: 'warn' }) });
  await app.start();
  const base = app.url('crawler');

  const crawl = async (label: string, concurrency: number, maxPages: number, sampleRss: boolean, index = true) => {
    const created = await post(`${base}/v1/schedules`, {
      name: label,
      cron: '0 0 1 1 *',
      config: {
        seeds: [`${site.origin}/p/0`],
        maxPages,
        maxDepth: 100,
        concurrency,
        perHostConcurrency: concurrency,
        politenessDelayMs: 0,
        respectRobots: false,
      },
      ...(index ? { autoIndex: { index: label } } : {}),
    });
    let peakRss = process.memoryUsage().rss;
    const sampler = sampleRss ? setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100) : undefined;
    const started = performance.now();
    const { jobId } = await post(`${base}/v1/schedules/${created.id}/run`, {});
    let job: any;
    for (;;) {
      job = ((await (await fetch(`${base}/v1/jobs/${jobId}`)).json()) as { job: any }).job;
      if (['completed', 'failed', 'cancelled'].includes(job.state)) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const seconds = (Date.parse(job.finishedAt) - Date.parse(job.startedAt)) / 1000;
    if (sampler) clearInterval(sampler);
    const wall = (performance.now() - started) / 1000;
    const { fetched, indexed, failed } = job.counts;
    if (job.state !== 'completed' || fetched !== maxPages || indexed !== (index ? maxPages : 0) || failed !== 0) {
      throw new Error(`${label}: the crawl did not fetch and index every page once: ${JSON.stringify(job)}`);
    }
    const line = {
      bench: 'crawler',
      label,
      concurrency,
      indexed: index,
      pages: fetched,
      seconds: Number(seconds.toFixed(2)),
      wallSeconds: Number(wall.toFixed(2)),
      pagesPerSecond: Math.round(fetched / seconds),
      ...(sampleRss ? { peakRssMb: Math.round(peakRss / 1048576) } : {}),
    };
    console.log(JSON.stringify(line));
    return line;
  };

  try {
    for (const concurrency of [1, 4, 16]) await crawl(`c${concurrency}`, concurrency, pagesPerRun, false);
    // Crawling alone first (the frontier, page states, parsing), then crawling into the in-process index.
    await crawl('rss-crawl-only', 16, rssPages, true, false);
    await crawl('rss', 16, rssPages, true);
  } finally {
    await app.stop();
    site.child.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
