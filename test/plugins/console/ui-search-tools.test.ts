import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { noImageMagick, renderText } from '../../../bench/image/imagemagick.js';
import { artifacts, hasChromium, launch, seriousViolations, shot } from './browser.js';
import { send, startFleet, type Fleet } from './support.js';

// The screens of the search tools (autocomplete, image metadata, knowledge graph, config plan),
// signed in through rbac's cookie session and reaching the search listener through the proxy.
describe.skipIf(!hasChromium)('control plane search tools in Chromium', { timeout: 90_000 }, () => {
  let f: Fleet;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];
  const api = (p: string, init: { method?: string; body?: unknown } = {}) => send(`${f.search}${p}`, { ...init, headers: { 'x-api-key': f.adminKey! } });

  beforeAll(async () => {
    f = await startFleet({ auth: true, graph: true });
    const created = await api('/v1/indexes', {
      body: {
        name: 'books',
        mappings: { title: { type: 'text', analyzer: 'english' }, body: { type: 'text' }, genre: { type: 'keyword' } },
      },
    });
    expect(created.body).toMatchObject({ ok: true });
    const docs = [
      { id: 'b1', title: 'Moby-Dick', body: 'Captain Ahab hunts the white whale.', genre: 'fiction' },
      { id: 'b2', title: 'Mobile Homes of America', body: 'A survey of trailers.', genre: 'history' },
    ];
    expect((await api('/v1/indexes/books/documents', { body: { documents: docs } })).body).toMatchObject({ ok: true });
    const entities = await api('/v1/indexes/books/graph/entities', {
      body: {
        entities: [
          { id: 'ahab', name: 'Captain Ahab', type: 'person', docIds: ['b1'] },
          { id: 'moby', name: 'Moby Dick', type: 'whale' },
          { id: 'pequod', name: 'Pequod', type: 'ship' },
        ],
      },
    });
    expect(entities.body).toMatchObject({ ok: true, added: 3 });
    const triples = await api('/v1/indexes/books/graph/triples', {
      body: {
        triples: [
          { subject: 'ahab', predicate: 'hunts', object: 'moby', weight: 2 },
          { subject: 'ahab', predicate: 'captains', object: 'pequod' },
        ],
      },
    });
    expect(triples.body).toMatchObject({ ok: true, added: 2 });
    browser = await launch();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
    await page.goto(f.console + '/sign-in');
    await page.getByLabel('API key').fill(f.adminKey!);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('h1').filter({ hasText: 'Fleet' }).waitFor();
    problems.length = 0; // the session check before sign-in answers 401, as it should
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await f?.stop();
  });

  const heading = () => page.locator('h1');

  it('suggests as the user types, grouped by type, and the include flags take sources out', async () => {
    await page.getByRole('link', { name: 'Autocomplete' }).click();
    await heading().filter({ hasText: 'Autocomplete preview' }).waitFor();
    await page.getByLabel('Type to see suggestions').pressSequentially('mob', { delay: 30 });
    await page.getByText('2 suggestions for mob').waitFor();
    const rows = (group: string) => page.getByRole('region', { name: group }).locator('tbody tr').allInnerTexts();
    expect(await rows('Documents')).toEqual([expect.stringMatching(/^Mobile Homes of America\t3\.\d{3}\t1\tdocument b2$/)]);
    // The title "Moby-Dick" is also the entity "Moby Dick": suggested once, from the source that scores it higher.
    expect(await rows('Entities')).toEqual([expect.stringMatching(/^Moby Dick\t3\.\d{3}\t1\twhale$/)]);
    // The knowledge graph's entities are suggested too, in their own group.
    await page.getByLabel('Type to see suggestions').fill('capt');
    const entities = page.getByRole('region', { name: 'Entities' });
    await entities.getByRole('cell', { name: 'Captain Ahab' }).waitFor();
    await entities.getByRole('cell', { name: 'person' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, '20-autocomplete');
    await page.getByLabel('Knowledge-graph entities').uncheck();
    await entities.waitFor({ state: 'detached' });
    await page.getByLabel('Knowledge-graph entities').check();
    await entities.getByRole('cell', { name: 'Captain Ahab' }).waitFor();
    // Typing on: the answer follows the last text, not an older one.
    await page.getByLabel('Type to see suggestions').pressSequentially(' zzz', { delay: 10 });
    await page.getByText('0 suggestions for').waitFor();
    expect(await page.getByRole('region', { name: 'Entities' }).count()).toBe(0);
  });

  it('drops an answer that arrives after the answer to newer text', async () => {
    const input = page.getByLabel('Type to see suggestions');
    await input.fill('');
    // The first request is held in the browser until a newer one has been answered.
    let seen!: () => void;
    const intercepted = new Promise<void>((resolve) => (seen = resolve));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let first = true;
    await page.route('**/autocomplete', async (route) => {
      if (first) {
        first = false;
        seen();
        await held;
      }
      await route.continue();
    });
    await input.fill('pequ');
    await intercepted;
    await input.fill('capt');
    const status = page.getByRole('status').filter({ hasText: /suggestions? for/ });
    await status.filter({ hasText: 'capt' }).waitFor();
    const late = page.waitForResponse((r) => r.url().endsWith('/autocomplete') && (r.request().postData() ?? '').includes('pequ'));
    release();
    expect((await late).status()).toBe(200);
    await page.evaluate('new Promise((r) => setTimeout(r, 100))');
    expect(await status.innerText()).toContain('capt');
    expect(await page.getByRole('region', { name: 'Entities' }).locator('tbody tr').allInnerTexts()).toEqual([expect.stringMatching(/^Captain Ahab\t/)]);
    await page.unroute('**/autocomplete');
  });

  it.skipIf(noImageMagick !== '')('reads an image: OCR text with its confidence, colour swatches, motifs and tags', async () => {
    const file = path.join(artifacts, 'invoice.png');
    writeFileSync(file, renderText('INVOICE 4521 TOTAL', { size: 48, fill: 'black', background: 'white' }));
    await page.getByRole('link', { name: 'Image metadata' }).click();
    await heading().filter({ hasText: 'Image metadata' }).waitFor();
    await page.getByLabel('Choose an image (PNG, JPEG, GIF or BMP), or drop one here').setInputFiles(file);
    const text = page.getByTestId('ocr-text');
    await text.waitFor({ timeout: 60_000 });
    expect((await text.innerText()).toUpperCase()).toContain('INVOICE 4521');
    expect(Number(await page.getByTestId('ocr-confidence').innerText())).toBeGreaterThan(50);
    const swatches = page.locator('.swatch-item');
    const names = await swatches.allInnerTexts();
    expect(names.some((n) => n.startsWith('white'))).toBe(true);
    expect(names.some((n) => n.startsWith('black'))).toBe(true);
    // The swatch is painted from the server's hex (validated), set through the CSSOM under the CSP.
    const white = swatches.filter({ hasText: /^white/ }).locator('.swatch');
    const [r, g, b] = ((await white.evaluate((e: unknown) => (globalThis as any).getComputedStyle(e).backgroundColor)) as string).match(/\d+/g)!.map(Number);
    expect(Math.min(r, g, b)).toBeGreaterThan(230);
    await page.getByText('Motifs:').getByText('text', { exact: true }).waitFor();
    await page.getByText('Suggested keywords:').getByText('invoice', { exact: true }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, '21-image-metadata');
  });

  it("shows an entity's neighbours and edges as a drawing, with links to its documents", async () => {
    await page.getByRole('link', { name: 'Knowledge graph' }).click();
    await heading().filter({ hasText: 'Knowledge graph' }).waitFor();
    await page.getByText('3 entities, 2 triples in books.').waitFor();
    await page.getByLabel('Entity').fill('captain ahab');
    await page.getByRole('button', { name: 'Search entities' }).click();
    await page.getByRole('heading', { name: 'Captain Ahab person' }).waitFor();
    const drawing = page.getByTestId('graph-drawing');
    expect(await drawing.locator('.graph-node').allTextContents()).toEqual(['Captain Ahab', 'Moby Dick', 'Pequod']);
    expect((await drawing.locator('.graph-edge').allTextContents()).sort()).toEqual(['captains', 'hunts']);
    const neighbours = page.locator('table', { has: page.locator('caption', { hasText: 'Neighbours' }) });
    expect(await neighbours.locator('tbody tr').allInnerTexts()).toEqual(['Moby Dick\twhale\tmoby', 'Pequod\tship\tpequod']);
    const edges = page.locator('table', { has: page.locator('caption', { hasText: 'Edges' }) });
    expect(await edges.locator('tbody tr').allInnerTexts()).toEqual(['Captain Ahab\thunts\tMoby Dick\t2', 'Captain Ahab\tcaptains\tPequod\t1']);
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, '22-graph');
    // A neighbour opens in its turn; a related document opens in the Documents screen.
    await neighbours.getByRole('button', { name: 'Moby Dick' }).click();
    await page.getByRole('heading', { name: 'Moby Dick whale' }).waitFor();
    await page.getByRole('button', { name: 'Captain Ahab' }).last().click();
    await page.getByRole('link', { name: 'b1' }).click();
    await heading().filter({ hasText: 'Documents of books' }).waitFor();
    await page.getByLabel('Source of document b1').waitFor();
  });

  it('plans a spec as a diff, applies it with its hash, and shows a stale plan as 409 plan_stale', async () => {
    await page.getByRole('link', { name: 'Config plan' }).click();
    await heading().filter({ hasText: 'Config plan' }).waitFor();
    const spec = (mappings: Record<string, unknown>, settings: Record<string, unknown>) =>
      JSON.stringify({ version: '1', indexes: [{ name: 'books', mappings, settings }] }, null, 2);
    const title = { type: 'text', analyzer: 'english' };
    await page
      .getByLabel('Configuration spec (JSON)')
      .fill(spec({ title, body: { type: 'text' }, genre: { type: 'keyword' }, pages: { type: 'number' } }, { defaultOperator: 'AND' }));
    await page.getByRole('button', { name: 'Plan', exact: true }).click();
    const steps = page.locator('.plan-step');
    await page.getByText('2 steps.').waitFor();
    expect(await steps.evaluateAll((l) => l.map((e) => e.getAttribute('data-action')))).toEqual(['update_setting', 'add_field']);
    expect(await steps.nth(1).innerText()).toContain('books.mappings.pages');
    await steps.nth(1).getByText('re-index').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, '23-config-plan');
    await page.getByRole('button', { name: 'Apply this plan' }).click();
    await page.getByText('Applied 2 steps; 0 documents lost.').waitFor();
    const after = await api('/v1/indexes/books');
    expect(after.body.index.mappings.pages).toEqual({ type: 'number', index: true });
    expect(after.body.index.settings.defaultOperator).toBe('AND');

    // A destructive plan waits for the confirmation; the index changes behind it: 409 plan_stale.
    await page.getByLabel('Configuration spec (JSON)').fill(spec({ title, body: { type: 'text' }, pages: { type: 'number' } }, { defaultOperator: 'AND' }));
    await page.getByRole('button', { name: 'Plan', exact: true }).click();
    await page.getByText('1 step, 1 destructive.').waitFor();
    await steps.first().getByText('destructive', { exact: true }).waitFor();
    const apply = page.getByRole('button', { name: 'Apply this plan' });
    expect(await apply.isDisabled()).toBe(true);
    await page.getByLabel('Allow destructive steps (books.mappings.genre)').check();
    expect(await apply.isDisabled()).toBe(false);
    expect((await api('/v1/indexes/books', { method: 'PATCH', body: { settings: { defaultOperator: 'OR' } } })).status).toBe(200);
    await apply.click();
    const stale = page.getByRole('alert').filter({ hasText: 'plan_stale' });
    await stale.getByText('The indexes changed since this plan was made').waitFor();
    expect(await stale.locator('code').innerText()).toMatch(/^[0-9a-f]{64}$/);
    expect((await api('/v1/indexes/books')).body.index.mappings.genre).toEqual({ type: 'keyword', index: true });
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, '24-config-plan-stale');
    // Planning again shows the change made behind the plan's back.
    await stale.getByRole('button', { name: 'Plan again' }).click();
    await page.getByText('2 steps, 1 destructive.').waitFor();
    expect(await steps.evaluateAll((l) => l.map((e) => e.getAttribute('data-action')))).toEqual(['update_setting', 'remove_field']);
    expect(await steps.first().innerText()).toContain('"OR" → "AND"');
    expect(await page.getByRole('alert').filter({ hasText: 'plan_stale' }).count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);
    // Nothing failed in the page but the 409 it was meant to show.
    expect(problems.filter((p) => !p.includes('status of 409'))).toEqual([]);
  });
});
