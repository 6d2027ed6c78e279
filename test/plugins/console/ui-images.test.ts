import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { motifRenderers, noImageMagick, renderText } from '../../../bench/image/imagemagick.js';
import { artifacts, hasChromium, launch, seriousViolations, shot } from './browser.js';
import { send, startFleet, type Fleet } from './support.js';

// Image fields in the mapping editor, image files through the Documents screen's upload, a
// document's image metadata and vector presence, index sizes, and a schedule's next runs.
describe.skipIf(!hasChromium || noImageMagick !== '')('control plane in Chromium: images, sizes and schedules', { timeout: 90_000 }, () => {
  let f: Fleet;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];
  const files = path.join(artifacts, 'image-uploads');

  beforeAll(async () => {
    f = await startFleet();
    mkdirSync(files, { recursive: true });
    writeFileSync(path.join(files, 'invoice.png'), renderText('Invoice 4521 total amount due', { size: 32 }));
    writeFileSync(path.join(files, 'towel.png'), motifRenderers.horizontal_stripes('red', 'white'));
    browser = await launch();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await f?.stop();
  });

  const go = (p: string) => page.goto(f.console + p);
  const heading = () => page.locator('h1');

  it('declares an image field in the mapping editor, checked as it is typed', async () => {
    await go('/indexes');
    await heading().filter({ hasText: 'Indexes' }).waitFor();
    await page.getByRole('button', { name: 'New index' }).click();
    await page.getByLabel('Index name').fill('posters');
    await page.getByRole('button', { name: 'Add field' }).click();
    await page.getByLabel('Field 2 path').fill('photo');
    // Image on a text field is refused before any request, and accepted once the type is keyword.
    await page.getByLabel('Image').nth(1).check();
    await page.getByText('An image field is a keyword field (its value references the image), not text.').waitFor();
    expect(await page.getByRole('button', { name: 'Create index' }).isDisabled()).toBe(true);
    await page.getByLabel('Type').nth(1).selectOption('keyword');
    await expect.poll(() => page.getByText('An image field is a keyword field').count()).toBe(0);
    // `_visual` is the service's own.
    await page.getByRole('button', { name: 'Add field' }).click();
    await page.getByLabel('Field 3 path').fill('_visual.mine');
    await page.getByText('_visual is reserved for the metadata of image fields').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, '30-create-index-image-field');
    await page.getByRole('button', { name: 'Remove field 3' }).click();
    await page.getByRole('button', { name: 'Create index' }).click();
    await expect.poll(() => page.url()).toBe(`${f.console}/indexes/posters`);
    const index = (await send(`${f.search}/v1/indexes/posters`)).body.index;
    expect(index.mappings).toEqual({
      title: { type: 'text', analyzer: 'english', index: true },
      photo: { type: 'keyword', index: true, image: true },
      '_visual.text': { type: 'text', analyzer: 'standard', index: true },
      '_visual.tags': { type: 'keyword', index: true },
      '_visual.colors': { type: 'keyword', index: true },
      '_visual.motifs': { type: 'keyword', index: true },
      '_visual.keywords': { type: 'keyword', index: true },
    });
    // The index screen shows the flag on the existing field.
    await page.getByLabel('Field 2 path').waitFor();
    expect(await page.getByLabel('Image').nth(1).isChecked()).toBe(true);
  });

  it('uploads images from the Documents screen and shows a document with its image metadata and vector presence', async () => {
    await go('/indexes/posters/documents');
    await heading().filter({ hasText: 'Documents of posters' }).waitFor();
    await page.getByLabel('Files (.json, .ndjson, .jsonl, .csv, or images').setInputFiles([path.join(files, 'invoice.png'), path.join(files, 'towel.png')]);
    await page.getByRole('button', { name: 'Upload files' }).click();
    await page.getByText('2 items read · 2 indexed · 0 failed').waitFor({ timeout: 60_000 });
    const filesTable = page.getByRole('table', { name: 'Files' });
    expect(await filesTable.locator('tbody tr').allInnerTexts()).toEqual(['invoice.png\timage\t1\t1\t0\tinvoice.png', 'towel.png\timage\t1\t1\t0\ttowel.png']);
    await page.getByText('2 documents; showing 1–2.').waitFor();

    await page.getByRole('button', { name: 'Open document invoice.png' }).click();
    const visual = page.getByRole('region', { name: 'Image metadata' });
    await visual.waitFor();
    expect(await page.getByTestId('doc-vector').innerText()).toBe('no none: the index has no vector settings');
    expect(await visual.getByTestId('doc-file').innerText()).toMatch(/^invoice\.png · image\/png · \d+ × \d+ · [\d.]+ KB$/);
    expect(await visual.getByTestId('doc-ocr').innerText()).toContain('Invoice 4521 total amount due');
    expect(await visual.locator('.swatch-item > span:nth-child(2)').allInnerTexts()).toEqual(['white', 'black']);
    // Swatches are painted from the server's validated hex through the CSSOM.
    const painted = await visual
      .locator('.swatch')
      .first()
      .evaluate((el) => (el as unknown as { style: { backgroundColor: string } }).style.backgroundColor);
    expect(painted).toMatch(/^rgb\(2\d\d, 2\d\d, 2\d\d\)$/);
    expect(await visual.locator('.badge-info').allInnerTexts()).toEqual(['text']);
    expect(await visual.getByRole('table', { name: 'Images read' }).locator('tbody td').first().innerText()).toBe('file');
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, '31-document-image-metadata');

    await page.getByRole('button', { name: 'Close' }).click();
    await page.getByRole('button', { name: 'towel.png', exact: true }).click();
    await visual.locator('.badge-info').filter({ hasText: 'horizontal_stripes' }).waitFor();
    expect(await visual.locator('.swatch-item > span:nth-child(2)').allInnerTexts()).toEqual(['red', 'white']);
    expect(await visual.locator('.badge-good').allInnerTexts()).toEqual(['red striped', 'white striped']);
  });

  it('turns the image flag of an existing field off, told beforehand that nothing is re-indexed', async () => {
    await go('/indexes/posters');
    await page.getByLabel('Field 2 path').waitFor();
    await page.getByLabel('Image').nth(1).uncheck();
    await page.getByText('Changed fields: photo.').waitFor();
    await page.getByText('No re-index: takes effect at the next search.').waitFor();
    await page.getByRole('button', { name: 'Apply changes' }).click();
    await page.getByText('Saved. No re-index was needed.').waitFor();
    const index = (await send(`${f.search}/v1/indexes/posters`)).body.index;
    expect(index.mappings.photo).toEqual({ type: 'keyword', index: true });
    expect(index.mappings['_visual.text']).toEqual({ type: 'text', analyzer: 'standard', index: true });
  });

  it('lists indexes with their size in bytes, as the search service measures it', async () => {
    await go('/indexes');
    const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'posters' }) });
    await row.waitFor();
    const stats = (await send(`${f.search}/v1/indexes/posters`)).body.index.stats;
    expect(stats.bytes).toBeGreaterThan(1024);
    const cell = row.locator('td').nth(2);
    expect(await cell.innerText()).toBe(`${(stats.bytes / 1024).toFixed(1)} KB`);
    expect(await cell.locator('span').getAttribute('title')).toBe(`${stats.bytes} bytes`);
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, '32-indexes-sizes');
    await go('/indexes/posters');
    await page.getByText(`${(stats.bytes / 1024).toFixed(1)} KB stored (sources`).waitFor();
  });

  it("shows a new schedule's next five runs as its cadence is typed, and why a cadence is wrong", async () => {
    await go('/crawls');
    await page.getByRole('button', { name: 'New schedule' }).click();
    const runs = page.getByTestId('next-runs').locator('li');
    await expect.poll(() => runs.count()).toBe(5);
    // Every 6h (the default): five runs six hours apart.
    const times = async () => (await runs.locator('time').evaluateAll((els) => els.map((e) => e.getAttribute('datetime')))).map((t) => Date.parse(t!));
    const sixHours = await times();
    expect(sixHours.slice(1).map((t, i) => t - sixHours[i]!)).toEqual([1, 2, 3, 4].map(() => 6 * 3_600_000));
    await page.getByLabel('Interval').fill('500ms');
    await page.getByTestId('cadence-error').filter({ hasText: 'An interval must be at least 1s, got 500ms.' }).waitFor();

    await page.getByLabel('Cron').check();
    await page.getByLabel('Cron expression').fill('0 3 * * *');
    await page.getByLabel('Time zone').fill('Asia/Kolkata');
    await page.getByText('Next runs (Asia/Kolkata):').waitFor();
    await expect.poll(async () => (await times()).map((t) => new Date(t).toISOString().slice(11))).toEqual(Array(5).fill('21:30:00.000Z'));
    await page.getByLabel('Cron expression').fill('0 25 * * *');
    await page.getByTestId('cadence-error').filter({ hasText: 'is not a valid cron expression' }).waitFor();
    expect(await page.getByTestId('next-runs').count()).toBe(0);
    await page.getByLabel('Cron expression').fill('*/30 * * * *');
    await expect.poll(() => runs.count()).toBe(5);
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, '33-schedule-next-runs');
    expect(problems.filter((p) => !p.includes('400'))).toEqual([]);
  });
});
