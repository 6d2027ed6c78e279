import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, json, postJson, tempDir, type TestApp } from '../../../helpers/app.js';
import { noImageMagick, renderText } from '../../../../bench/image/imagemagick.js';
import { bombPng } from './png-bomb.js';

const words = (text: string): string[] => text.toLowerCase().match(/[a-z0-9]+/g) ?? [];

/** Share of `expected` words read, in order-insensitive multiset terms. */
function wordAccuracy(expected: string, read: string[]): number {
  const pool = read.map((w) => w.toLowerCase());
  let hits = 0;
  for (const w of words(expected)) {
    const i = pool.indexOf(w);
    if (i >= 0) {
      hits++;
      pool.splice(i, 1);
    }
  }
  return hits / words(expected).length;
}

describe.skipIf(noImageMagick !== '')('POST /v1/tools/image-metadata', () => {
  let t: TestApp;
  let url: string;
  const media = tempDir('tessera-media-');
  const outside = tempDir('tessera-outside-');
  const invoice = renderText('Invoice 4521 total amount due', { size: 32 });

  beforeAll(async () => {
    mkdirSync(path.join(media, 'scans'));
    writeFileSync(path.join(media, 'scans', 'invoice.png'), invoice);
    writeFileSync(path.join(outside, 'secret.png'), invoice);
    symlinkSync(path.join(outside, 'secret.png'), path.join(media, 'escape.png'));
    t = await createTestApp({
      listeners: [{ name: 'search', port: 0, plugins: ['search'] }],
      plugins: { search: { options: { mediaRoot: media, images: { maxBytes: 2 * 1024 * 1024, maxPixels: 25_000_000 } } } },
      kernels: { threads: 1 },
    });
    url = `${t.url()}/v1/tools/image-metadata`;
  }, 60_000);
  afterAll(async () => {
    await t.stop();
    rmSync(media, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  const analyse = async (body: unknown): Promise<{ status: number; body: any; headers: Headers }> => {
    const res = await postJson(url, body);
    return { status: res.status, body: await json(res), headers: res.headers };
  };

  it('reads rendered text in several fonts, sizes and colours with word accuracy of at least 90%', async () => {
    const samples = [
      { text: 'Quarterly report for the northern region', font: 'DejaVu-Sans', size: 28, fill: 'black', background: 'white' },
      { text: 'Summer garden party on Saturday', font: 'DejaVu-Serif', size: 34, fill: 'navy', background: 'lightyellow' },
      { text: 'Warehouse inventory count finished', font: 'DejaVu-Sans-Mono', size: 24, fill: 'darkgreen', background: 'white' },
      { text: 'Please remember to lock the door', font: 'DejaVu-Sans-Bold', size: 40, fill: 'white', background: 'darkred' },
      { text: 'Fresh coffee and warm bread', font: 'DejaVu-Serif-Bold', size: 20, fill: 'black', background: 'lightblue' },
    ];
    let expected = 0;
    let read = 0;
    for (const s of samples) {
      const { status, body } = await analyse({ bufferBase64: renderText(s.text, s).toString('base64') });
      expect(status).toBe(200);
      const accuracy = wordAccuracy(s.text, body.metadata.ocr.words);
      expect(accuracy, `${s.font} ${s.size}px read "${body.metadata.ocr.text}"`).toBeGreaterThanOrEqual(0.8);
      expected += words(s.text).length;
      read += accuracy * words(s.text).length;
      expect(body.metadata.motifs[0]).toBe('text');
    }
    expect(read / expected).toBeGreaterThanOrEqual(0.9);
  });

  it('answers the seed shape: ocr, colours, motifs, tags, keywords and typed suggestions', async () => {
    const { status, body } = await analyse({ bufferBase64: invoice.toString('base64') });
    expect(status).toBe(200);
    expect(body.ok).toBe(true);
    const m = body.metadata;
    expect(m.ocr.words).toEqual(['Invoice', '4521', 'total', 'amount', 'due']);
    expect(m.ocr.confidence).toBeGreaterThan(80);
    expect(m.ocr.wordDetails[0]).toMatchObject({ text: 'Invoice', confidence: expect.any(Number), bbox: { x0: expect.any(Number) } });
    expect(m.colors[0]).toBe('white');
    expect(m.motifs).toEqual(['text']);
    expect(m.tags).toEqual(expect.arrayContaining(['white', 'text', 'invoice', 'total', 'amount', 'due']));
    expect(m.suggestedKeywords).toEqual(expect.arrayContaining(['invoice', 'total', 'amount', 'due', 'white text']));
    expect(m.suggestedKeywords).not.toContain('4521');
    const types = new Set(m.autocompleteSuggestions.map((s: { type: string }) => s.type));
    expect(types).toEqual(new Set(['color', 'motif', 'visual_tag']));
    expect(m.autocompleteSuggestions.find((s: { type: string }) => s.type === 'color')).toMatchObject({
      text: 'white',
      score: m.colorShares[0].share,
      count: 1,
      payload: { share: m.colorShares[0].share, hex: expect.stringMatching(/^#[0-9a-f]{6}$/) },
    });
    expect(m.image).toMatchObject({ format: 'png', bytes: invoice.length, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(body.timings).toMatchObject({ decode: expect.any(Number), colors: expect.any(Number), motifs: expect.any(Number), ocr: expect.any(Number) });
  });

  it('takes a data: URI and a path inside mediaRoot', async () => {
    const viaUri = await analyse({ image: `data:image/png;base64,${invoice.toString('base64')}` });
    expect(viaUri.status).toBe(200);
    const viaPath = await analyse({ image: 'scans/invoice.png' });
    expect(viaPath.status).toBe(200);
    expect(viaPath.body.metadata.ocr.words).toEqual(viaUri.body.metadata.ocr.words);
    const absolute = await analyse({ image: path.join(media, 'scans', 'invoice.png') });
    expect(absolute.status).toBe(200);
  });

  it('refuses paths outside mediaRoot after resolving .. and symbolic links: 403 path_not_allowed', async () => {
    for (const image of ['../secret.png', `scans/../../${path.basename(outside)}/secret.png`, path.join(outside, 'secret.png'), 'escape.png', '/etc/passwd']) {
      const { status, body } = await analyse({ image });
      expect(status, image).toBe(403);
      expect(body.error.code, image).toBe('path_not_allowed');
    }
    const missing = await analyse({ image: 'scans/none.png' });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('image_not_found');
  });

  it('refuses neither or both inputs with 400 image_input_invalid, and an empty body with 400', async () => {
    for (const body of [{}, { image: 'scans/invoice.png', bufferBase64: invoice.toString('base64') }]) {
      const r = await analyse(body);
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('image_input_invalid');
    }
    const empty = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' } });
    expect(empty.status).toBe(400);
    expect((await json(empty)).error.code).toBe('validation_failed');
    const scheme = await analyse({ image: 'ftp://example.com/a.png' });
    expect(scheme.status).toBe(400);
  });

  it('answers 422 invalid_image for 0 bytes, a non-image and a truncated PNG', async () => {
    const cases = { empty: Buffer.alloc(0), text: Buffer.from('hello, not an image at all'), truncated: invoice.subarray(0, Math.floor(invoice.length / 2)) };
    for (const [name, bytes] of Object.entries(cases)) {
      const { status, body } = await analyse({ bufferBase64: bytes.toString('base64') });
      expect(status, name).toBe(422);
      expect(body.error.code, name).toBe('invalid_image');
    }
  });

  it('answers 413 image_too_large past maxBytes and 422 image_too_many_pixels for a decompression bomb', async () => {
    const big = Buffer.alloc(2 * 1024 * 1024 + 1, 1);
    const large = await analyse({ bufferBase64: big.toString('base64') });
    expect(large.status).toBe(413);
    expect(large.body.error).toMatchObject({ code: 'image_too_large', details: { bytes: big.length, limit: 2 * 1024 * 1024 } });
    const bomb = bombPng(30_000, 30_000);
    expect(bomb.length).toBeLessThan(200_000);
    const started = Date.now();
    const r = await analyse({ bufferBase64: bomb.toString('base64') });
    expect(r.status).toBe(422);
    expect(r.body.error).toMatchObject({ code: 'image_too_many_pixels', details: { width: 30_000, height: 30_000, limit: 25_000_000 } });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('refuses URLs while allowRemoteImages is off: 403 remote_images_disabled', async () => {
    const { status, body } = await analyse({ image: 'https://example.com/cat.png' });
    expect(status).toBe(403);
    expect(body.error.code).toBe('remote_images_disabled');
  });
});
