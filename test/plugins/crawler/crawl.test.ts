import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json } from '../../helpers/app.js';
import { html, TestSite } from './site.js';
import { call, crawlOnce, fast, search, startCrawler, type CrawlerApp } from './support.js';

const site = new TestSite();
let t: CrawlerApp;
const id = (url: string) => createHash('sha256').update(url).digest('hex').slice(0, 32);

async function getDoc(url: string): Promise<any> {
  const res = await fetch(`${t.search}/v1/indexes/web/documents/${id(url)}`);
  if (res.status === 404) return undefined;
  const body = await json(res);
  return body.document ?? body;
}

beforeAll(async () => {
  await site.start();
  const o = site.origin;
  site.set('/robots.txt', { type: 'text/plain', body: `User-agent: *\nDisallow: /private/\nCrawl-delay: 0.2\n\nSitemap: ${o}/sitemap.xml\n` });
  site.set('/sitemap.xml', {
    type: 'application/xml',
    body: `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${o}/from-sitemap</loc></url></urlset>`,
  });
  site.set(
    '/',
    html(
      'Harbour home',
      'The harbour front page about lighthouses.',
      [
        '/loop/a',
        '/redirect/1',
        '/redirect-loop',
        '/missing',
        '/error',
        '/slow',
        '/huge',
        '/data.json',
        '/notes.txt',
        '/image.png',
        '/dup?b=2&a=1',
        '/dup?a=1&b=2#section',
        '/print',
        '/private/secret',
        'http://elsewhere.invalid/page',
        'mailto:someone@example.com',
      ],
      '<meta name="description" content="All about the harbour">',
    ),
  );
  site.set('/loop/a', html('Loop A', 'first loop page', ['/loop/b', '/loop/a#top']));
  site.set('/loop/b', html('Loop B', 'second loop page', ['/loop/a', '/']));
  site.set('/redirect/1', { status: 301, headers: { location: '/redirect/2' } });
  site.set('/redirect/2', { status: 302, headers: { location: `${o}/landing` } });
  site.set('/landing', html('Landing', 'reached through two redirects'));
  site.set('/redirect-loop', { status: 302, headers: { location: '/redirect-loop-2' } });
  site.set('/redirect-loop-2', { status: 302, headers: { location: '/redirect-loop' } });
  site.set('/error', { status: 500, body: 'boom' });
  site.set('/slow', { body: html('Slow', 'too slow'), delayMs: 3000 });
  site.set('/huge', { streamBytes: 2 * 1024 * 1024 });
  site.set('/data.json', { type: 'application/json', body: JSON.stringify({ title: 'Tide table', entries: [{ note: 'springtide' }] }) });
  site.set('/notes.txt', { type: 'text/plain; charset=utf-8', body: 'Ferry notes\nThe ferry leaves at dawn.' });
  site.set('/image.png', { type: 'image/png', body: 'PNG' });
  site.set('/dup?a=1&b=2', html('Duplicate', 'one page under two addresses'));
  site.set('/print', html('Article (print)', 'canonical article body', [], '<link rel="canonical" href="/article">'));
  site.set('/article', html('Article', 'canonical article body'));
  site.set('/private/secret', html('Secret', 'must never be fetched'));
  site.set('/from-sitemap', html('Sitemap only', 'found through the sitemap'));
  // Pages without navigation, for the limits: /chain/0 -> /chain/1 -> /chain/2 -> /chain/3.
  for (let i = 0; i < 4; i++) site.set(`/chain/${i}`, `<html><body><p>chain ${i}</p><a href="/chain/${i + 1}">next</a></body></html>`);
  t = await startCrawler();
});

afterAll(async () => {
  await t?.stop();
  await site.stop();
});

describe('a crawl of a real local site', () => {
  let job: any;
  let scheduleId: string;

  beforeAll(async () => {
    ({ job, scheduleId } = await crawlOnce(t, {
      name: 'harbour',
      config: { seeds: [site.url('/')], ...fast, requestTimeoutMs: 1000, maxPageBytes: 100_000, maxRedirects: 4, concurrency: 4 },
      autoIndex: { index: 'web' },
    }));
  });

  it('completes with counts, skip reasons and the failures listed', () => {
    expect(job).toMatchObject({ state: 'completed', scheduleId, name: 'harbour' });
    expect(job.skippedBy).toEqual({ robots: 1, too_large: 1, content_type: 1, ...(job.skippedBy.duplicate ? { duplicate: 1 } : {}) });
    const errors = Object.fromEntries(job.errors.map((e: any) => [new URL(e.url).pathname, e.code]));
    expect(errors).toEqual({ '/redirect-loop': 'redirect_limit', '/missing': 'http_404', '/error': 'http_500', '/slow': 'timeout' });
    expect(job.errors.find((e: any) => e.code === 'http_404')).toMatchObject({ status: 404, url: site.url('/missing') });
    expect(job.counts).toMatchObject({ failed: 4, unchanged: 0, removed: 0 });
    expect(job.counts.skipped).toBe(Object.values(job.skippedBy).reduce((a: number, b: any) => a + b, 0));
    // Indexed: home, loop a and b, landing, data.json, notes.txt, dup, article, from-sitemap.
    expect(job.counts.indexed).toBe(9);
    expect(job.progress).toMatchObject({ value: 1, maxPages: 100 });
    expect(job.startedAt <= job.finishedAt).toBe(true);
  });

  it('obeys robots.txt: a disallowed path is never requested, Crawl-delay spaces the requests, the User-Agent names Tessera', () => {
    expect(site.hitsOf('/private/secret')).toEqual([]);
    expect(site.hitsOf('/robots.txt')).toHaveLength(1);
    // Redirect hops belong to one request; robots.txt is read just before the first page. The
    // sitemap is read like a page, with the same pause.
    expect(site.hitsOf('/sitemap.xml')).toHaveLength(1);
    const pageHits = site.hits.filter((h) => !/^\/(robots\.txt|redirect|landing)/.test(h.path));
    for (const hit of site.hits) expect(hit.userAgent).toMatch(/^Tessera\/\d+\.\d+\.\d+/);
    // One request at a time per host, each 200 ms (Crawl-delay: 0.2) after the previous ended.
    for (let i = 1; i < pageHits.length; i++) expect(pageHits[i]!.at - pageHits[i - 1]!.at).toBeGreaterThanOrEqual(190);
  });

  it('deduplicates URLs differing only in query order or fragment, and follows a loop of links once', () => {
    expect(site.hits.filter((h) => h.path.startsWith('/dup'))).toHaveLength(1);
    expect(site.hitsOf('/loop/a')).toHaveLength(1);
    expect(site.hitsOf('/loop/b')).toHaveLength(1);
    expect(site.hitsOf('/')).toHaveLength(1);
  });

  it('follows redirects and indexes the page where they land; leaves other origins alone', async () => {
    expect(site.hitsOf('/redirect/2')).toHaveLength(1);
    expect(await getDoc(site.url('/landing'))).toMatchObject({ url: site.url('/landing'), title: 'Landing' });
    expect(await getDoc(site.url('/redirect/1'))).toBeUndefined();
    // The loop was cut at maxRedirects (4): five requests, then refused.
    expect(site.hitsOf('/redirect-loop').length + site.hitsOf('/redirect-loop-2').length).toBe(5);
  });

  it('indexes a page under its canonical URL once', async () => {
    const hits = await search(t.search, 'web', 'canonical');
    expect(hits.map((h: any) => h.source.url)).toEqual([site.url('/article')]);
    expect(site.hitsOf('/print').length + site.hitsOf('/article').length).toBeLessThanOrEqual(2);
  });

  it('writes {id, url, title, description, content, headings, lang, crawledAt}, without navigation or footer in the text', async () => {
    const doc = await getDoc(site.url('/'));
    expect(doc).toMatchObject({
      id: id(site.url('/')),
      url: site.url('/'),
      title: 'Harbour home',
      description: 'All about the harbour',
      headings: ['Harbour home'],
      lang: 'en',
      crawledAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(doc.content).toContain('The harbour front page about lighthouses.');
    expect(doc.content).not.toContain('navigation menu');
    expect(doc.content).not.toContain('copyright footer');
  });

  it('indexes JSON and plain-text pages, and pages only a sitemap names; skips other content types', async () => {
    expect(await getDoc(site.url('/data.json'))).toMatchObject({ title: 'Tide table', content: 'Tide table springtide' });
    expect(await getDoc(site.url('/notes.txt'))).toMatchObject({ title: 'Ferry notes', content: 'Ferry notes The ferry leaves at dawn.' });
    expect(await getDoc(site.url('/from-sitemap'))).toMatchObject({ title: 'Sitemap only' });
    expect(await getDoc(site.url('/image.png'))).toBeUndefined();
    expect((await search(t.search, 'web', 'springtide')).length).toBe(1);
  });

  it("serves the job's events as SSE, ending with its final state", async () => {
    const res = await fetch(`${t.crawler}/v1/jobs/${job.id}/events`);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const text = await res.text();
    const types = [...text.matchAll(/^event: (.+)$/gm)].map((m) => m[1]);
    expect(types[0]).toBe('job.queued');
    expect(types).toContain('job.started');
    expect(types).toContain('job.progress');
    expect(types.at(-1)).toBe('job.completed');
    expect(text).toContain('"fetched":');
    expect((await call('GET', `${t.crawler}/v1/jobs/nope/events`)).body.error.code).toBe('job_not_found');
  });
});

describe('crawl limits', () => {
  const limited = (config: Record<string, unknown>) =>
    crawlOnce(t, { name: 'limits', config: { seeds: [site.url('/chain/0')], ...fast, respectRobots: false, ...config } });

  it('stops at maxDepth', async () => {
    expect((await limited({ maxDepth: 0 })).job.counts.fetched).toBe(1);
    const before = site.hitsOf('/chain/2').length;
    expect((await limited({ maxDepth: 1 })).job.counts.fetched).toBe(2);
    expect(site.hitsOf('/chain/2').length).toBe(before);
    // /chain/4 does not exist: a 404 for a page never crawled before is a failure.
    const deep = (await limited({ maxDepth: 10 })).job;
    expect(deep.counts).toMatchObject({ fetched: 5, failed: 1 });
  });

  it('stops at maxPages and says so', async () => {
    const { job } = await limited({ maxPages: 3 });
    expect(job.counts.fetched).toBe(3);
    expect(job.stoppedBy).toBe('maxPages');
    expect(job.progress).toMatchObject({ pages: 3, maxPages: 3 });
  });

  it('applies include and exclude patterns to the URL path', async () => {
    expect((await limited({ exclude: ['/chain/2'] })).job.counts.fetched).toBe(2);
    expect((await limited({ exclude: ['/chain/*'] })).job.counts.fetched).toBe(0);
    // The seed is always fetched; its links only when they match.
    expect((await limited({ include: ['/chain/1'] })).job.counts.fetched).toBe(2);
    expect((await limited({ include: ['/chain/**'] })).job.counts.fetched).toBe(5);
  });

  it('follows other origins only with sameOrigin false', async () => {
    const other = new TestSite();
    await other.start();
    other.set('/', '<html><body>another origin</body></html>');
    site.set('/outward', `<html><body><a href="${other.url('/')}">out</a></body></html>`);
    try {
      const same = await crawlOnce(t, { name: 'o1', config: { seeds: [site.url('/outward')], ...fast, sitemaps: false } });
      expect(same.job.counts.fetched).toBe(1);
      expect(other.hits).toEqual([]);
      const open = await crawlOnce(t, { name: 'o2', config: { seeds: [site.url('/outward')], ...fast, sitemaps: false, sameOrigin: false } });
      expect(open.job.counts.fetched).toBe(2);
      expect(other.hitsOf('/')).toHaveLength(1);
    } finally {
      await other.stop();
    }
  });

  it('checks every redirect against the egress policy: an allowed host cannot bounce the crawl to a private one', async () => {
    const port = new URL(site.origin).port;
    site.set('/bounce', { status: 302, headers: { location: `http://localhost:${port}/` } });
    const listed = await startCrawler({ allowHosts: [`127.0.0.1:${port}`] });
    try {
      const { job } = await crawlOnce(listed, { name: 'bounce', config: { seeds: [site.url('/bounce')], ...fast, respectRobots: false } });
      expect(job.counts).toMatchObject({ fetched: 0, failed: 1 });
      expect(job.errors).toEqual([expect.objectContaining({ url: site.url('/bounce'), code: 'egress_denied' })]);
    } finally {
      await listed.stop();
    }
  });
});
