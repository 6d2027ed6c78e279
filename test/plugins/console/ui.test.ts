import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestSite } from '../crawler/site.js';
import { artifacts, hasChromium, launch, seriousViolations, shot } from './browser.js';
import { send, startFleet, type Fleet } from './support.js';

const xssTitle = '<img src=x onerror="window.__xss=1">Whale <script>window.__xss=2</script>';

const ndjson = [
  {
    id: 'b1',
    title: 'Moby-Dick',
    body: 'Captain Ahab hunts the white whale across the sea.',
    genre: 'fiction',
    year: 1851,
    location: { lat: 41.63, lon: -70.93 },
  },
  {
    id: 'b2',
    title: 'The Old Man and the Sea',
    body: 'An old fisherman fights a giant marlin in the Gulf Stream.',
    genre: 'fiction',
    year: 1952,
    location: { lat: 23.13, lon: -82.38 },
  },
  { id: 'x1', title: xssTitle, body: 'A whale of a <b>test</b> & more.', genre: 'attack', year: 2000 },
]
  .map((d) => JSON.stringify(d))
  .join('\n');
const csv =
  'id,title,body,genre,year,location\nc1,Cod,"A biography of the fish that changed the world, whale or not.",history,1997,"47.56,-52.71"\nc2,The Sea Around Us,A natural history of the ocean and the sea floor.,science,1951,\n';

describe.skipIf(!hasChromium)('control plane in Chromium', { timeout: 60_000 }, () => {
  let f: Fleet;
  let site: TestSite;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const problems: string[] = [];
  const files = path.join(artifacts, 'uploads');

  beforeAll(async () => {
    f = await startFleet({ auth: true });
    site = await new TestSite().start();
    site.set('/', {
      type: 'text/html',
      body: '<html><head><title>Site home</title></head><body><h1>Home</h1><a href="/a">A</a> <a href="/b">B</a></body></html>',
    });
    site.set('/a', {
      type: 'text/html',
      body: '<html><head><title>Page A</title></head><body><p>Lighthouse keepers and whales.</p><a href="/b">B</a></body></html>',
    });
    site.set('/b', { type: 'text/html', body: '<html><head><title>Page B</title></head><body><p>Tides and currents.</p></body></html>' });
    mkdirSync(path.join(f.root, 'docs', 'notes'), { recursive: true });
    writeFileSync(path.join(f.root, 'docs', 'harbour.txt'), 'The harbour master logs every ship.');
    writeFileSync(path.join(f.root, 'docs', 'notes', 'tides.md'), '# Tides\nSpring tides come twice a month.');
    mkdirSync(files, { recursive: true });
    writeFileSync(path.join(files, 'books.ndjson'), ndjson);
    writeFileSync(path.join(files, 'more.csv'), csv);
    browser = await launch();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await site?.stop();
    await f?.stop();
  });

  const go = (p: string) => page.goto(f.console + p);
  const heading = () => page.locator('h1');

  it('sends a signed-out user to sign-in, with the first screen under 100 KB of gzipped JavaScript', async () => {
    const scripts = new Map<string, number>();
    page.on('response', async (r) => {
      if (r.request().resourceType() === 'script') scripts.set(r.url(), gzipSync(await r.body()).length);
    });
    await go('/indexes');
    await expect.poll(() => page.url()).toBe(`${f.console}/sign-in?next=%2Findexes`);
    await heading().filter({ hasText: 'Sign in to Tessera' }).waitFor();
    // From the start of the navigation to the sign-in form, in the page's own clock.
    const firstRenderMs = Math.round((await page.evaluate('performance.now()')) as number);
    page.removeAllListeners('response');
    const total = [...scripts.values()].reduce((a, b) => a + b, 0);
    writeFileSync(
      path.join(artifacts, 'budget.json'),
      JSON.stringify({ firstRenderMs, scriptsGzipBytes: total, scripts: Object.fromEntries(scripts) }, null, 2),
    );
    expect(scripts.size).toBeGreaterThan(3);
    expect(total).toBeLessThanOrEqual(100 * 1024);
    // Served from this origin only.
    for (const url of scripts.keys()) expect(url.startsWith(f.console)).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, '01-sign-in');
  });

  it('refuses a wrong key and signs in with a right one through the HttpOnly session cookie', async () => {
    await page.getByLabel('API key').fill('tsk_wrong');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: 'key_invalid' })
      .or(page.getByRole('alert').filter({ hasText: 'invalid' }))
      .first()
      .waitFor();
    await page.getByLabel('API key').fill(f.adminKey!);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.url()).toBe(`${f.console}/indexes`);
    await heading().filter({ hasText: 'Indexes' }).waitFor();
    const cookies = await context.cookies();
    expect(cookies.find((c) => c.name === 'tessera_session')).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
    expect(await page.evaluate('document.cookie')).not.toContain('tessera_session');
  });

  it('shows the fleet: every listener healthy, with charts and plugin versions', async () => {
    await page.getByRole('link', { name: 'Fleet' }).click();
    await heading().filter({ hasText: 'Fleet' }).waitFor();
    for (const name of ['search', 'control', 'crawler', 'scanner']) await page.locator(`#l-${name}`).filter({ hasText: 'ok' }).waitFor();
    await page.getByRole('cell', { name: 'console' }).waitFor();
    // Two samples make a rate: the charts fill in.
    await page
      .locator('#l-search')
      .locator('..')
      .getByText(/Requests\/s: \d/)
      .waitFor({ timeout: 10_000 });
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, '02-fleet');
  });

  it('creates an index with mappings, checking the name as it is typed', async () => {
    await page.getByRole('link', { name: 'Indexes' }).click();
    await page.getByRole('button', { name: 'New index' }).click();
    await page.getByLabel('Index name').fill('Bad Name');
    await page.getByText('Lowercase letters, digits').waitFor();
    expect(await page.getByRole('button', { name: 'Create index' }).isDisabled()).toBe(true);
    await page.getByLabel('Index name').fill('library');
    const fields: Array<[string, string]> = [
      ['body', 'text'],
      ['genre', 'keyword'],
      ['year', 'number'],
      ['location', 'geo_point'],
    ];
    for (const [i, [name, type]] of fields.entries()) {
      await page.getByRole('button', { name: 'Add field' }).click();
      await page.getByLabel(`Field ${i + 2} path`).fill(name);
      await page
        .getByLabel('Type')
        .nth(i + 1)
        .selectOption(type);
    }
    // A path inside another is refused before any request.
    await page.getByRole('button', { name: 'Add field' }).click();
    await page.getByLabel('Field 6 path').fill('genre.sub');
    await page.getByText('A path cannot sit inside another mapped path').first().waitFor();
    await page.getByRole('button', { name: 'Remove field 6' }).click();
    await page.getByLabel('Vector dimensions').fill('64');
    await page.getByLabel('Embed documents and queries (autoEmbed, built-in embedder)').check();
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, '03-create-index');
    await page.getByRole('button', { name: 'Create index' }).click();
    await expect.poll(() => page.url()).toBe(`${f.console}/indexes/library`);
    const index = await send(`${f.search}/v1/indexes/library`, { headers: { 'x-api-key': f.adminKey! } });
    expect(index.body.index.mappings).toEqual({
      title: { type: 'text', analyzer: 'english', index: true },
      body: { type: 'text', analyzer: 'standard', index: true },
      genre: { type: 'keyword', index: true },
      year: { type: 'number', index: true },
      location: { type: 'geo_point', index: true },
    });
    expect(index.body.index.settings).toMatchObject({ vectorDimensions: 64, autoEmbed: true });
  });

  it('uploads an NDJSON and a CSV file with per-file results', async () => {
    await page.getByRole('link', { name: 'Documents' }).click();
    await heading().filter({ hasText: 'Documents of library' }).waitFor();
    await page.getByLabel('Files (.json, .ndjson, .jsonl, .csv, or images').setInputFiles([path.join(files, 'books.ndjson'), path.join(files, 'more.csv')]);
    await page.getByRole('button', { name: 'Upload files' }).click();
    await page.getByText('5 items read · 5 indexed · 0 failed').waitFor();
    await page.getByRole('cell', { name: 'books.ndjson' }).waitFor();
    await page.getByRole('cell', { name: 'more.csv' }).waitFor();
    await page.getByText('5 documents; showing 1–5.').waitFor();
    await shot(page, '04-documents');
  });

  it('renders a document field holding markup as text, never as HTML', async () => {
    await page.getByRole('button', { name: 'x1' }).click();
    const source = page.getByLabel('Source of document x1');
    await source.waitFor();
    expect(await source.innerText()).toContain(JSON.stringify(xssTitle).slice(1, -1).replace(/\\"/g, '\\"'));
    expect(await page.locator('main img').count()).toBe(0);
    expect(await page.evaluate('window.__xss')).toBeUndefined();
    await page.getByTestId('doc-vector').filter({ hasText: 'yes present: embedded by the index (autoEmbed, 64 dimensions)' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, '05-document');
  });

  it('searches by keyword with highlights as <mark> only: markup in a highlight stays text', async () => {
    await go('/search?index=library');
    await heading().filter({ hasText: 'Search playground' }).waitFor();
    await page.getByLabel('Query', { exact: true }).fill('whale');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByRole('heading', { name: /^\d+ hits/ }).waitFor();
    const marks = await page.locator('.hits mark').allInnerTexts();
    expect(marks.length).toBeGreaterThan(0);
    expect(marks.every((m) => m.toLowerCase() === 'whale')).toBe(true);
    const x1 = page.locator('.hit').filter({ hasText: 'x1' });
    expect(await x1.locator('.hl').first().innerText()).toContain('<img src=x onerror="window.__xss=1">');
    expect(await page.locator('.hits img, .hits script, .hits b').count()).toBe(0);
    expect(await page.evaluate('window.__xss')).toBeUndefined();
    // The request as curl names the search listener itself, not the proxy.
    await page.getByText('The request as curl').click();
    expect(await page.getByLabel('curl command').innerText()).toContain(`curl -X POST '${f.search}/v1/indexes/library/search'`);
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, '06-search-keyword');
  });

  it('searches semantically, hybrid with the ranking explained side by side, and by distance', async () => {
    await page.getByLabel('Mode').selectOption('semantic');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByRole('heading', { name: /^[1-9]\d* hits/ }).waitFor();

    await page.getByLabel('Mode').selectOption('hybrid');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const explain = page.getByRole('region', { name: 'Hybrid ranking explained' });
    await explain.waitFor();
    for (const caption of ['Fused (RRF)', 'Keyword (BM25)', 'Semantic (vectors)']) await explain.getByRole('table', { name: caption }).waitFor();
    const keywordIds = await explain.getByRole('table', { name: 'Keyword (BM25)' }).locator('tbody tr td:nth-child(2)').allInnerTexts();
    expect(new Set(keywordIds)).toEqual(new Set(['b1', 'x1', 'c1']));
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, '07-search-hybrid');

    await page.getByLabel('Mode').selectOption('geo');
    await page.getByLabel('Query', { exact: true }).fill('');
    await page.getByLabel('Latitude').fill('41.6');
    await page.getByLabel('Longitude').fill('-70.9');
    await page.getByLabel('Radius').fill('100km');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByRole('heading', { name: /^1 hits/ }).waitFor();
    expect(await page.locator('.hit').first().innerText()).toMatch(/^b1 score [\d.]+ · \d+ m/);
    await shot(page, '08-search-geo');
  });

  it('creates a crawl schedule and follows a run live to completion', async () => {
    await page.getByRole('link', { name: 'Crawls' }).click();
    await page.getByRole('button', { name: 'New schedule' }).click();
    await page.getByLabel('Name').fill('test site');
    await page.getByLabel('Seed URLs (one per line)').fill(site.url('/'));
    await page.getByLabel('Interval').fill('1d');
    await page.getByLabel('Index to feed').fill('site');
    await page.getByRole('button', { name: 'Create schedule' }).click();
    await page.getByRole('cell', { name: 'test site', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Run now test site' }).click();
    const job = page.locator('section[aria-live]').filter({ hasText: 'Crawl job_' });
    await job.getByText('completed').waitFor({ timeout: 30_000 });
    expect(await job.locator('.counts').innerText()).toMatch(/fetched 3 · indexed 3 · skipped 0 · unchanged 0 · failed 0/);
    await page.getByRole('button', { name: 'Pause test site' }).click();
    await page.getByRole('cell', { name: 'paused' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, '09-crawls');
  });

  it('starts a folder scan and follows it live to completion', async () => {
    await page.getByRole('link', { name: 'Scans' }).click();
    await page.getByLabel('Path on the server').fill(path.join(f.root, 'docs'));
    await page.getByLabel('Target index').fill('files');
    await page.getByRole('button', { name: 'Start scan' }).click();
    const scan = page.locator('section[aria-live]').filter({ hasText: 'folder scan of' });
    await scan.getByText('completed').waitFor({ timeout: 30_000 });
    expect(await scan.locator('.counts').innerText()).toMatch(/seen 2 · created 2 · modified 0 · deleted 0 · indexed 2 · errors 0/);
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, '10-scans');
  });

  it('creates a key, shows its secret once, and the key works', async () => {
    await page.getByRole('link', { name: 'Keys' }).click();
    await page.getByLabel('Key name').fill('ci');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = await page.getByTestId('new-secret').innerText();
    expect(secret).toMatch(/^tsk_/);
    const me = await send(`${f.console}/hub/me`, { headers: { 'x-api-key': secret } });
    expect(me.status).toBe(200);
    await page.getByRole('cell', { name: 'ci', exact: true }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, '11-keys');
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.getByTestId('new-secret').count()).toBe(0);
  });

  it('adds a user with a password on the Keys screen and edits its roles', async () => {
    await page.getByLabel('User name').fill('olga');
    await page.getByLabel('Role', { exact: true }).selectOption('viewer');
    await page.getByLabel('Password (optional, 12+ characters)').fill('console password one');
    await page.getByRole('button', { name: 'Add user' }).click();
    const users = page.getByRole('table', { name: 'Users of this tenant' });
    const olga = users.getByRole('row').filter({ hasText: 'olga' });
    await olga.waitFor();
    expect(await olga.locator('td').allInnerTexts()).toEqual(['olga', 'viewer', 'set', 'enabled', expect.any(String), 'Edit']);
    await page.getByRole('button', { name: 'Edit roles of olga' }).click();
    const dialog = page.getByRole('dialog', { name: 'Roles of olga' });
    await dialog.getByLabel('viewer', { exact: true }).uncheck();
    await dialog.getByLabel('admin', { exact: true }).check();
    expect(await seriousViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await expect.poll(() => olga.locator('td').nth(1).innerText()).toBe('admin');
    const listed = await send(`${f.console}/hub/rbac/users?limit=200`, { headers: { 'x-api-key': f.adminKey! } });
    expect(listed.body.users.find((u: { name: string }) => u.name === 'olga')).toMatchObject({ roles: ['admin'], disabled: false, hasPassword: true });
  });

  it('is usable from the keyboard: a skip link first, then the screens, and focus on the new screen', async () => {
    await go('/fleet');
    await heading().filter({ hasText: 'Fleet' }).waitFor();
    const focused = () => page.evaluate('document.activeElement && document.activeElement.textContent');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('Skip to content');
    await page.keyboard.press('Enter');
    expect(await page.evaluate('document.activeElement.id')).toBe('main');
    await go('/fleet');
    await heading().filter({ hasText: 'Fleet' }).waitFor();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('Fleet');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('Indexes');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.url()).toBe(`${f.console}/indexes`);
    await expect.poll(() => page.evaluate('document.activeElement.id')).toBe('page-title');
    expect(await focused()).toBe('Indexes');
  });

  it('edits settings with the re-index told before applying, and deletes the index after its name is typed', async () => {
    await go('/indexes/library');
    await page.getByRole('button', { name: 'Add field' }).click();
    await page.getByLabel('Field 6 path').fill('lang');
    await page.getByLabel('Type').nth(5).selectOption('keyword');
    await page.getByText('This re-indexes all 5 documents before it answers.').waitFor();
    await page.getByRole('button', { name: 'Apply changes' }).click();
    await page.getByText('Saved. The index was re-indexed.').waitFor();
    await shot(page, '12-index-settings');
    await page.getByRole('button', { name: 'Delete index' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name of the index').fill('librar');
    expect(await dialog.getByRole('button', { name: 'Delete' }).isDisabled()).toBe(true);
    await dialog.getByLabel('Name of the index').fill('library');
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => page.url()).toBe(`${f.console}/indexes`);
    expect((await send(`${f.search}/v1/indexes/library`, { headers: { 'x-api-key': f.adminKey! } })).status).toBe(404);
  });

  it('signs out, after which the screens send the user back to sign-in', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await heading().filter({ hasText: 'Sign in to Tessera' }).waitFor();
    await go('/fleet');
    await expect.poll(() => page.url()).toBe(`${f.console}/sign-in?next=%2Ffleet`);
    // No script error and no CSP violation along the way (the wrong key's 401 is the one expected failure).
    expect(problems.filter((p) => !p.includes('401'))).toEqual([]);
  });

  it('signs in with the user name and password set on the Keys screen', async () => {
    await page.getByLabel('Sign in with').selectOption('password');
    await page.getByLabel('User name').fill('olga');
    await page.getByLabel('Password').fill('wrong password here');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'invalid' }).first().waitFor();
    await page.getByLabel('Password').fill('console password one');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.url()).toBe(`${f.console}/fleet`);
    await heading().filter({ hasText: 'Fleet' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
  });
});
