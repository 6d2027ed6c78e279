import { copyFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, json, postJson, tempDir, type TestApp } from '../../../helpers/app.js';
import { motifRenderers, noImageMagick, renderText } from '../../../../bench/image/imagemagick.js';

async function waitFor<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 60_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(noImageMagick !== '')('visual extraction at ingest', () => {
  let t: TestApp;
  let base: string;
  const media = tempDir('tessera-visual-');

  beforeAll(async () => {
    writeFileSync(path.join(media, 'stripes.png'), motifRenderers.horizontal_stripes('red', 'white'));
    copyFileSync(path.join(media, 'stripes.png'), path.join(media, 'stripes-copy.png'));
    writeFileSync(path.join(media, 'checks.png'), motifRenderers.checks('blue', 'yellow'));
    const invoice = renderText('Invoice 4521 total amount due', { size: 32 });
    writeFileSync(path.join(media, 'invoice.png'), invoice);
    writeFileSync(path.join(media, 'broken.png'), invoice.subarray(0, 200));
    t = await createTestApp({
      listeners: [{ name: 'search', port: 0, plugins: ['search', 'visual-terms-consumer'] }],
      plugins: { search: { options: { mediaRoot: media } }, 'visual-terms-consumer': { module: './plugins/visual-terms-consumer/index.js' } },
      kernels: { threads: 1 },
    });
    base = `${t.url()}/v1/indexes`;
  }, 60_000);
  afterAll(async () => {
    await t.stop();
    rmSync(media, { recursive: true, force: true });
  });

  const indexInfo = async (name: string): Promise<any> => (await json(await fetch(`${base}/${name}`))).index;
  const doc = async (index: string, id: string): Promise<any> => (await json(await fetch(`${base}/${index}/documents/${id}`))).document;
  const search = async (index: string, body: unknown): Promise<string[]> =>
    (await json(await postJson(`${base}/${index}/search`, body))).hits.map((h: { id: string }) => h.id).sort();
  const settled = (index: string, expected: Record<string, number>): Promise<any> =>
    waitFor(async () => {
      const visual = (await indexInfo(index)).stats.visual;
      return visual.pending === 0 && Object.entries(expected).every(([k, v]) => visual[k] === v) ? visual : undefined;
    }, `${index} extraction`);

  it('maps _visual on an index with an image field and refuses image on other types or _visual paths', async () => {
    const created = await json(await postJson(base, { name: 'posters', mappings: { title: { type: 'text' }, photo: { type: 'keyword', image: true } } }));
    expect(created.index.mappings).toEqual({
      title: { type: 'text', analyzer: 'standard', index: true },
      photo: { type: 'keyword', index: true, image: true },
      '_visual.text': { type: 'text', analyzer: 'standard', index: true },
      '_visual.tags': { type: 'keyword', index: true },
      '_visual.colors': { type: 'keyword', index: true },
      '_visual.motifs': { type: 'keyword', index: true },
      '_visual.keywords': { type: 'keyword', index: true },
    });
    expect(created.index.stats.visual).toEqual({ pending: 0, extracted: 0, reused: 0, failed: 0 });
    const plain = await json(await postJson(base, { name: 'plain', mappings: { title: { type: 'text' } } }));
    expect(Object.keys(plain.index.mappings)).toEqual(['title']);
    expect(plain.index.stats.visual).toBeUndefined();
    const wrongType = await postJson(base, { name: 'bad1', mappings: { photo: { type: 'text', image: true } } });
    expect(wrongType.status).toBe(400);
    expect((await json(wrongType)).error.code).toBe('invalid_mapping');
    const reserved = await postJson(base, { name: 'bad2', mappings: { '_visual.mine': { type: 'keyword' } } });
    expect(reserved.status).toBe(400);
    expect((await json(reserved)).error.details.issues[0]).toMatchObject({ path: 'mappings._visual.mine' });
  });

  it('enriches documents in the background; a bad image is a per-document error, never a batch failure', async () => {
    const written = await json(
      await postJson(`${base}/posters/documents`, [
        { id: 'p1', title: 'Beach towel', photo: 'stripes.png' },
        { id: 'p2', title: 'Office paperwork', photo: 'invoice.png' },
        { id: 'p3', title: 'Damaged scan', photo: 'broken.png' },
        { id: 'p4', title: 'Picnic blanket', photo: 'checks.png' },
        { id: 'p5', title: 'No picture' },
      ]),
    );
    expect(written).toMatchObject({ indexed: 5, errors: [] });
    expect(await settled('posters', { extracted: 3, failed: 1 })).toMatchObject({ reused: 0 });

    const p1 = await doc('posters', 'p1');
    expect(p1).toMatchObject({ id: 'p1', title: 'Beach towel', photo: 'stripes.png' });
    expect(p1._visual).toMatchObject({ colors: ['red', 'white'], motifs: ['horizontal_stripes'], keywords: ['red striped', 'white striped'], errors: [] });
    expect(p1._visual.images).toEqual([expect.objectContaining({ field: 'photo', format: 'png', width: 320, height: 240, sha256: expect.any(String) })]);
    const p3 = await doc('posters', 'p3');
    expect(p3._visual).toMatchObject({ text: '', tags: [], images: [], errors: [{ field: 'photo', code: 'invalid_image', message: expect.any(String) }] });
    expect(await doc('posters', 'p5')).toEqual({ id: 'p5', title: 'No picture' });
    expect((await indexInfo('posters')).stats.visual.lastError).toMatchObject({ id: 'p3', field: 'photo', code: 'invalid_image' });
  });

  it('makes OCR text searchable and tags filterable', async () => {
    expect(await search('posters', { q: 'invoice amount', fields: ['_visual.text'] })).toEqual(['p2']);
    expect(await search('posters', { q: '', filter: { eq: { '_visual.colors': 'red' } } })).toEqual(['p1']);
    expect(await search('posters', { q: '', filter: { eq: { '_visual.motifs': 'checks' } } })).toEqual(['p4']);
    expect(await search('posters', { q: '', filter: { eq: { '_visual.tags': 'invoice' } } })).toEqual(['p2']);
  });

  it('lists the index visual terms with counts for autocomplete', async () => {
    const terms = async (query: string): Promise<any[]> => (await json(await fetch(`${t.url()}/visual-terms/posters?${query}`))).terms;
    expect(await terms('prefix=red')).toEqual([
      { text: 'red', type: 'color', count: 1, docId: 'p1' },
      { text: 'red striped', type: 'visual_tag', count: 1, docId: 'p1' },
    ]);
    expect(await terms('prefix=str')).toEqual([
      { text: 'red striped', type: 'visual_tag', count: 1, docId: 'p1' },
      { text: 'white striped', type: 'visual_tag', count: 1, docId: 'p1' },
    ]);
    expect(await terms('types=motif')).toEqual([
      { text: 'checks', type: 'motif', count: 1, docId: 'p4' },
      { text: 'horizontal_stripes', type: 'motif', count: 1, docId: 'p1' },
      { text: 'text', type: 'motif', count: 1, docId: 'p2' },
    ]);
    expect((await terms('types=color&limit=1'))[0]).toEqual({ text: 'white', type: 'color', count: 2, docId: 'p1' });
  });

  it('offers colours, motifs and visual tags in autocomplete, and includeVisualTags false leaves them out', async () => {
    const suggest = async (body: Record<string, unknown>): Promise<any[]> =>
      (await json(await postJson(`${base}/posters/autocomplete`, { size: 20, ...body }))).suggestions;
    const visual = (list: any[]): any[] =>
      list.filter((s) => ['color', 'motif', 'visual_tag'].includes(s.type)).map(({ text, type, count, docId }) => ({ text, type, count, docId }));
    expect(visual(await suggest({ q: 'red' }))).toEqual(
      expect.arrayContaining([
        { text: 'red', type: 'color', count: 1, docId: 'p1' },
        { text: 'red striped', type: 'visual_tag', count: 1, docId: 'p1' },
      ]),
    );
    expect(visual(await suggest({ q: 'chec' }))).toEqual([
      { text: 'checks', type: 'motif', count: 1, docId: 'p4' },
      { text: 'blue checked', type: 'visual_tag', count: 1, docId: 'p4' },
      { text: 'yellow checked', type: 'visual_tag', count: 1, docId: 'p4' },
    ]);
    expect(visual(await suggest({ q: 'red', includeVisualTags: false }))).toEqual([]);
    // GET takes the same source.
    const viaGet = (await json(await fetch(`${base}/posters/autocomplete?q=whi&size=20`))).suggestions;
    expect(visual(viaGet)).toEqual(expect.arrayContaining([{ text: 'white', type: 'color', count: 2, docId: 'p1' }]));
  });

  it('reuses the stored metadata for the same image bytes when a document is written again', async () => {
    await postJson(`${base}/posters/documents`, [
      { id: 'p1', title: 'Beach towel, striped', photo: 'stripes.png' },
      { id: 'p6', title: 'Deck chair', photo: 'stripes-copy.png' },
    ]);
    const visual = await settled('posters', { extracted: 3, reused: 2 });
    expect(visual.failed).toBe(1);
    expect((await doc('posters', 'p1'))._visual.colors).toEqual(['red', 'white']);
    expect((await doc('posters', 'p1')).title).toBe('Beach towel, striped');
    expect((await json(await fetch(`${t.url()}/visual-terms/posters?prefix=red`))).terms[0]).toMatchObject({ text: 'red', count: 2 });
  });

  it('leaves documents alone when enableVisualExtraction is false', async () => {
    await postJson(base, { name: 'off', mappings: { photo: { type: 'keyword', image: true } }, settings: { enableVisualExtraction: false } });
    await postJson(`${base}/off/documents`, [{ id: 'o1', photo: 'stripes.png' }]);
    await new Promise((r) => setTimeout(r, 500));
    expect(await doc('off', 'o1')).toEqual({ id: 'o1', photo: 'stripes.png' });
    expect((await indexInfo('off')).stats.visual).toEqual({ pending: 0, extracted: 0, reused: 0, failed: 0 });
  });
});
