import { expect } from 'vitest';
import { createTestApp, json, postJson, type TestApp } from '../../helpers/app.js';

export interface CrawlerApp extends TestApp {
  crawler: string;
  search: string;
}

/** search and crawler on their own listeners, as in the fleet manifest (3848 and 3851). */
export async function startCrawler(
  options: Record<string, unknown> = { allowPrivateAddresses: true },
  extra: { dataDir?: string; bulk?: boolean } = {},
): Promise<CrawlerApp> {
  const t = await createTestApp(
    {
      listeners: [
        { name: 'search', port: 0, plugins: extra.bulk ? ['search', 'bulk'] : ['search'] },
        { name: 'crawler', port: 0, plugins: ['crawler'] },
      ],
      plugins: { search: {}, crawler: { options }, ...(extra.bulk ? { bulk: {} } : {}) },
    },
    extra.dataDir ? { dataDir: extra.dataDir } : {},
  );
  return Object.assign(t, { crawler: t.url('crawler'), search: t.url('search') });
}

/** Crawl settings that keep tests fast: no politeness pause unless a test asks for one. */
export const fast = { politenessDelayMs: 0, requestTimeoutMs: 2000 };

export async function call(method: string, url: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { method, ...(body !== undefined ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}) });
  return { status: res.status, body: await json(res) };
}

export async function createSchedule(t: CrawlerApp, body: Record<string, unknown>): Promise<string> {
  const res = await postJson(`${t.crawler}/v1/schedules`, body);
  const answer = await json(res);
  expect(res.status, JSON.stringify(answer)).toBe(201);
  return answer.id as string;
}

export async function runNow(t: CrawlerApp, id: string): Promise<string> {
  const { status, body } = await call('POST', `${t.crawler}/v1/schedules/${id}/run`);
  expect(status, JSON.stringify(body)).toBe(200);
  return body.jobId as string;
}

export async function getJob(t: CrawlerApp, jobId: string): Promise<any> {
  return (await call('GET', `${t.crawler}/v1/jobs/${jobId}`)).body.job;
}

export async function waitForJob(t: CrawlerApp, jobId: string, predicate: (job: any) => boolean = isFinal, timeoutMs = 20_000): Promise<any> {
  const until = Date.now() + timeoutMs;
  let job: any;
  while (Date.now() < until) {
    job = await getJob(t, jobId);
    if (job && predicate(job)) return job;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`Job ${jobId} did not reach the expected state; last: ${JSON.stringify(job)}`);
}

export const isFinal = (job: any): boolean => ['completed', 'failed', 'cancelled'].includes(job.state);

/** Creates a schedule that only runs when asked, runs it, and waits for the job to end. */
export async function crawlOnce(t: CrawlerApp, body: Record<string, unknown>): Promise<{ scheduleId: string; job: any }> {
  const scheduleId = await createSchedule(t, { cron: '0 0 1 1 *', ...body });
  const jobId = await runNow(t, scheduleId);
  const job = await waitForJob(t, jobId);
  return { scheduleId, job };
}

export async function search(baseUrl: string, index: string, q: string): Promise<any[]> {
  const res = await postJson(`${baseUrl}/v1/indexes/${index}/search`, { q, size: 100 });
  const body = await json(res);
  if (res.status !== 200) throw new Error(`search failed: ${JSON.stringify(body)}`);
  return body.hits;
}

export async function docCount(baseUrl: string, index: string): Promise<number> {
  const res = await fetch(`${baseUrl}/v1/indexes/${index}`);
  if (res.status === 404) return -1;
  return (await json(res)).index.docCount;
}
