import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { html, TestSite } from './site.js';
import { crawlOnce, docCount, fast, search, startCrawler, type CrawlerApp } from './support.js';

const site = new TestSite();
const other = new TestSite();
let t: CrawlerApp;

const urlset = (...urls: string[]) =>
  `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls.map((u) => `<url><loc>${u}</loc></url>`).join('')}</urlset>`;

beforeAll(async () => {
  await site.start();
  await other.start();
  t = await startCrawler();
});

afterAll(async () => {
  await t?.stop();
  await site.stop();
  await other.stop();
});

describe('sitemaps', () => {
  it('are read one at a time with the per-host pause (Crawl-delay), after robots.txt and the seed, following an index one level', async () => {
    const o = site.origin;
    site.set('/robots.txt', { type: 'text/plain', body: `User-agent: *\nCrawl-delay: 0.3\nSitemap: ${o}/sitemap-index.xml\n` });
    site.set('/sitemap-index.xml', {
      type: 'application/xml',
      body: `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${o}/sm-a.xml</loc></sitemap><sitemap><loc>${o}/sm-b.xml</loc></sitemap></sitemapindex>`,
    });
    site.set('/sm-a.xml', { type: 'application/xml', body: urlset(`${o}/from-a`, `${o}/linked`) });
    site.set('/sm-b.xml', { type: 'application/xml', body: urlset(`${o}/from-b`, `${other.origin}/elsewhere`) });
    site.set('/', `<html><body><p>the seed page</p><a href="/linked">linked</a></body></html>`);
    for (const p of ['/from-a', '/from-b', '/linked']) site.set(p, `<html><body><p>page ${p.slice(1)} beacon</p></body></html>`);
    const start = site.hits.length;

    const { job } = await crawlOnce(t, { name: 'sitemaps', config: { seeds: [site.url('/')], ...fast }, autoIndex: { index: 'sitemaps' } });

    expect(job).toMatchObject({ state: 'completed', counts: { fetched: 4, indexed: 4, skipped: 0, failed: 0 } });
    const hits = site.hits.slice(start);
    // The seed first, then the sitemaps in order ahead of the pages they and the seed lead to.
    expect(hits.map((h) => h.path)).toEqual(['/robots.txt', '/', '/sitemap-index.xml', '/sm-a.xml', '/sm-b.xml', '/linked', '/from-a', '/from-b']);
    // robots.txt is read just before the first page; every later request waits out the Crawl-delay.
    for (let i = 2; i < hits.length; i++) expect(hits[i]!.at - hits[i - 1]!.at, hits[i]!.path).toBeGreaterThanOrEqual(290);
    // Another origin named in a sitemap is left alone (sameOrigin).
    expect(other.hits).toEqual([]);
    expect((await search(t.search, 'sitemaps', 'beacon')).map((h: any) => h.source.url).sort()).toEqual(
      [site.url('/from-a'), site.url('/from-b'), site.url('/linked')].sort(),
    );
  });
});

describe('robots.txt on redirect hops', () => {
  it('does not follow a redirect to a disallowed URL: neither it nor where it leads is requested', async () => {
    const host = new TestSite();
    await host.start();
    try {
      host.set('/robots.txt', { type: 'text/plain', body: 'User-agent: *\nDisallow: /private/\n' });
      host.set('/', html('Hops', 'redirects every way', ['/through-private', '/into-private', '/through-other', '/fine']));
      // A hop through a disallowed path, landing on an allowed page.
      host.set('/through-private', { status: 302, headers: { location: '/private/step' } });
      host.set('/private/step', { status: 302, headers: { location: '/open' } });
      host.set('/open', html('Open', 'reachable only through the private hop'));
      // Landing on a disallowed page.
      host.set('/into-private', { status: 301, headers: { location: '/private/final' } });
      host.set('/private/final', html('Final', 'disallowed landing'));
      // A hop through an origin whose robots.txt cannot be read (5xx): nothing there is requested.
      other.set('/robots.txt', { status: 503, body: 'down' });
      other.set('/bounce', { status: 302, headers: { location: host.url('/back') } });
      host.set('/back', html('Back', 'reachable only through the other origin'));
      // An allowed chain still works.
      host.set('/fine', { status: 302, headers: { location: '/landed' } });
      host.set('/landed', html('Landed', 'through an allowed redirect'));
      host.set('/through-other', { status: 307, headers: { location: other.url('/bounce') } });

      const { job } = await crawlOnce(t, { name: 'hops', config: { seeds: [host.url('/')], ...fast }, autoIndex: { index: 'hops' } });

      expect(job).toMatchObject({
        state: 'completed',
        counts: { fetched: 5, indexed: 2, skipped: 3, failed: 0 },
        skippedBy: { robots: 2, robots_unavailable: 1 },
        errors: [],
      });
      for (const p of ['/private/step', '/open', '/private/final', '/back']) expect(host.hitsOf(p), p).toEqual([]);
      expect(other.hitsOf('/bounce')).toEqual([]);
      expect(other.hitsOf('/robots.txt')).toHaveLength(1);
      expect(host.hitsOf('/landed')).toHaveLength(1);
      expect(await docCount(t.search, 'hops')).toBe(2);
      expect((await search(t.search, 'hops', 'landed')).map((h: any) => h.source.url)).toEqual([host.url('/landed')]);
      expect(await search(t.search, 'hops', 'reachable')).toEqual([]);
    } finally {
      await host.stop();
    }
  });

  it('follows every hop when respectRobots is off', async () => {
    const host = new TestSite();
    await host.start();
    try {
      host.set('/robots.txt', { type: 'text/plain', body: 'User-agent: *\nDisallow: /private/\n' });
      host.set('/', { status: 302, headers: { location: '/private/step' } });
      host.set('/private/step', { status: 302, headers: { location: '/open' } });
      host.set('/open', html('Open', 'behind the hop'));
      const { job } = await crawlOnce(t, { name: 'no-robots', config: { seeds: [host.url('/')], ...fast, respectRobots: false } });
      expect(job).toMatchObject({ state: 'completed', counts: { fetched: 1, skipped: 0, failed: 0 } });
      expect(host.hits.map((h) => h.path)).toEqual(['/', '/private/step', '/open']);
    } finally {
      await host.stop();
    }
  });
});
