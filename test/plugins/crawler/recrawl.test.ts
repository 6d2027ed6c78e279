import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, json, type TestApp } from '../../helpers/app.js';
import { TestSite } from './site.js';
import { call, createSchedule, docCount, fast, runNow, search, startCrawler, waitForJob, type CrawlerApp } from './support.js';

const site = new TestSite();
const lastModified = 'Wed, 21 Oct 2015 07:28:00 GMT';
const id = (url: string) => createHash('sha256').update(url).digest('hex').slice(0, 32);
const page = (text: string, links: string[] = []) =>
  `<html><head><title>${text.split(' ')[0]}</title></head><body><p>${text}</p>${links.map((l) => `<a href="${l}">${l}</a>`).join('')}</body></html>`;

/** The site as the first crawl sees it. */
function firstVersion(): void {
  site.pages.clear();
  site.set('/', page('Index of the cove', ['/e', '/m', '/h', '/gone']));
  site.set('/e', { body: page('Etag page about seagulls'), etag: '"v1"' });
  site.set('/m', { body: page('Dated page about pelicans'), lastModified });
  site.set('/h', page('Hashed page first version'));
  site.set('/gone', page('Doomed page about driftwood'));
}

/** Then: /h changes, /gone disappears (and / stops linking to it), /e and /m stay as they were. */
function secondVersion(): void {
  site.set('/', page('Index of the cove', ['/e', '/m', '/h']));
  site.set('/h', page('Hashed page second version with kelp'));
  site.pages.delete('/gone');
}

beforeAll(async () => {
  await site.start();
});

afterAll(async () => {
  await site.stop();
});

interface Mode {
  crawler: CrawlerApp | TestApp;
  crawlerUrl: string;
  /** Where the index is read back. */
  engineUrl: string;
  autoIndex: Record<string, unknown>;
  stop(): Promise<void>;
}

const finalDocuments = new Map<string, unknown[]>();

async function inProcess(): Promise<Mode> {
  const t = await startCrawler();
  return { crawler: t, crawlerUrl: t.crawler, engineUrl: t.search, autoIndex: { index: 'cove' }, stop: () => t.stop() };
}

/** The engine in one process (search and bulk), the crawler alone in another (its manifest serves only the crawler). */
async function overHttp(): Promise<Mode> {
  const engine = await createTestApp({ listeners: [{ name: 'engine', port: 0, plugins: ['search', 'bulk'] }], plugins: { search: {}, bulk: {} } });
  const crawler = await createTestApp({
    listeners: [{ name: 'crawler', port: 0, plugins: ['crawler'] }],
    plugins: { search: {}, crawler: { options: { allowPrivateAddresses: true, batchDocs: 2 } } },
  });
  return {
    crawler,
    crawlerUrl: crawler.url('crawler'),
    engineUrl: engine.url('engine'),
    autoIndex: { index: 'cove', engineUrl: engine.url('engine') },
    stop: async () => {
      await crawler.stop();
      await engine.stop();
    },
  };
}

describe.each([
  ['in-process, through the search service', inProcess],
  ["over HTTP, through a remote engine's bulk API", overHttp],
])('re-crawling a site %s', (label, start) => {
  let mode: Mode;
  let scheduleId: string;
  const app = () => ({ crawler: mode.crawlerUrl }) as CrawlerApp;
  const crawl = async () => waitForJob(app(), await runNow(app(), scheduleId));

  beforeAll(async () => {
    firstVersion();
    site.hits.length = 0;
    mode = await start();
    scheduleId = await createSchedule(app(), { name: 'cove', cron: '0 0 1 1 *', config: { seeds: [site.url('/')], ...fast }, autoIndex: mode.autoIndex });
  });

  afterAll(async () => {
    await mode?.stop();
  });

  it("creates the index on first use with the crawler's mappings and indexes every page", async () => {
    const job = await crawl();
    expect(job).toMatchObject({ state: 'completed', counts: { fetched: 5, indexed: 5, unchanged: 0, removed: 0, failed: 0, skipped: 0 } });
    const index = (await json(await fetch(`${mode.engineUrl}/v1/indexes/cove`))).index;
    expect(index.mappings).toMatchObject({
      url: { type: 'keyword' },
      title: { type: 'text' },
      content: { type: 'text' },
      headings: { type: 'text' },
      lang: { type: 'keyword' },
      crawledAt: { type: 'date' },
    });
    expect(index.docCount).toBe(5);
    expect((await search(mode.engineUrl, 'cove', 'driftwood')).map((h: any) => h.id)).toEqual([id(site.url('/gone'))]);
  });

  it('skips unchanged pages (ETag, Last-Modified, then content hash), re-indexes changed ones and removes gone ones', async () => {
    secondVersion();
    const job = await crawl();
    expect(job).toMatchObject({ state: 'completed', counts: { fetched: 5, indexed: 2, unchanged: 2, removed: 1, failed: 0 } });
    // Conditional requests carried what the first crawl stored.
    expect(site.hitsOf('/e').map((h) => h.ifNoneMatch)).toEqual([undefined, '"v1"']);
    expect(site.hitsOf('/m').map((h) => h.ifModifiedSince)).toEqual([undefined, lastModified]);
    // /gone is no longer linked: the crawl checked it again because the last run had indexed it.
    expect(site.hitsOf('/gone')).toHaveLength(2);
    expect(await docCount(mode.engineUrl, 'cove')).toBe(4);
    expect(await search(mode.engineUrl, 'cove', 'driftwood')).toEqual([]);
    expect((await search(mode.engineUrl, 'cove', 'kelp')).map((h: any) => h.source.url)).toEqual([site.url('/h')]);
    expect(await search(mode.engineUrl, 'cove', 'first')).toEqual([]);
  });

  it('changes nothing in the index when nothing changed, and forgets removed pages', async () => {
    const job = await crawl();
    expect(job).toMatchObject({ counts: { fetched: 4, indexed: 0, unchanged: 4, removed: 0, failed: 0 } });
    expect(site.hitsOf('/gone')).toHaveLength(2);
    const schedule = (await call('GET', `${mode.crawlerUrl}/v1/schedules/${scheduleId}`)).body.schedule;
    expect(schedule.pagesKnown).toBe(4);
    const docs = [];
    for (const path of ['/', '/e', '/m', '/h']) {
      const res = await fetch(`${mode.engineUrl}/v1/indexes/cove/documents/${id(site.url(path))}`);
      expect(res.status).toBe(200);
      const body = await json(res);
      const { crawledAt, ...doc } = body.document ?? body;
      expect(crawledAt).toEqual(expect.any(String));
      docs.push(doc);
    }
    finalDocuments.set(label, docs);
  });
});

describe('both feeding modes', () => {
  it('write the same documents', () => {
    const [a, b] = [...finalDocuments.values()];
    expect(a).toBeDefined();
    expect(b).toEqual(a);
    expect(a![3]).toMatchObject({ id: id(site.url('/h')), url: site.url('/h'), title: 'Hashed', content: 'Hashed page second version with kelp' });
  });
});
