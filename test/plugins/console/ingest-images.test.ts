import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { motifRenderers, noImageMagick, render, renderText } from '../../../bench/image/imagemagick.js';
import { send, startFleet, type Fleet } from './support.js';

const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');
const blob = (bytes: Buffer, type: string): Blob => new Blob([new Uint8Array(bytes)], { type });

describe.skipIf(noImageMagick !== '')('POST /v1/ingest/{index} with images', () => {
  let f: Fleet;
  // Rendered at test time by ImageMagick, in every format the pipeline decodes and two it does not.
  const invoice = renderText('Invoice 4521 total amount due', { size: 32 });
  const stripes = motifRenderers.horizontal_stripes('red', 'white');
  const navyJpeg = render(['-size', '320x240', 'xc:navy'], 'jpeg');
  const bread = renderText('Fresh bread daily', { fill: 'white', background: 'blue', size: 36 });
  const webp = render(['-size', '64x64', 'xc:red'], 'webp');
  const tiff = render(['-size', '64x64', 'xc:red'], 'tiff');
  const bmp = render(['-size', '320x240', 'xc:yellow'], 'bmp');

  beforeAll(async () => {
    f = await startFleet({ console: { maxImages: 6, maxImageBytes: 400_000 } });
    // An image field gives the index its `_visual.*` mappings, so ingested images are searchable.
    const created = await send(`${f.search}/v1/indexes`, {
      body: { name: 'media', mappings: { title: { type: 'text' }, photo: { type: 'keyword', image: true } } },
    });
    expect(created.status).toBe(200);
  }, 60_000);
  afterAll(() => f.stop());

  const doc = async (id: string): Promise<any> => (await send(`${f.search}/v1/indexes/media/documents/${encodeURIComponent(id)}`)).body.document;
  const ids = async (body: unknown): Promise<string[]> =>
    (await send(`${f.search}/v1/indexes/media/search`, { body })).body.hits.map((h: { id: string }) => h.id).sort();

  it('makes each image of a multipart upload a document with its metadata, id from the file name, beside data files', async () => {
    const form = new FormData();
    form.append('file', blob(invoice, 'image/png'), 'invoice.png');
    form.append('file', blob(stripes, 'image/png'), 'towel.png');
    form.append('file', blob(navyJpeg, 'image/jpeg'), 'navy.jpg');
    form.append('file', blob(bmp, 'application/octet-stream'), 'yellow.bmp');
    form.append('file', blob(webp, 'image/webp'), 'red.webp');
    form.append('file', blob(Buffer.from('{"id":"t1","title":"a text document"}\n'), 'application/x-ndjson'), 'docs.ndjson');
    const { status, body } = await send(`${f.console}/v1/ingest/media`, { raw: form });
    expect(status).toBe(200);
    expect(body).toMatchObject({ ok: true, items: 6, indexed: 5, failed: 1 });
    expect(body.files).toEqual([
      { name: 'invoice.png', format: 'image', items: 1, indexed: 1, failed: 0, id: 'invoice.png' },
      { name: 'towel.png', format: 'image', items: 1, indexed: 1, failed: 0, id: 'towel.png' },
      { name: 'navy.jpg', format: 'image', items: 1, indexed: 1, failed: 0, id: 'navy.jpg' },
      { name: 'yellow.bmp', format: 'image', items: 1, indexed: 1, failed: 0, id: 'yellow.bmp' },
      { name: 'red.webp', format: 'image', items: 1, indexed: 0, failed: 1 },
      { name: 'docs.ndjson', format: 'ndjson', items: 1, indexed: 1, failed: 0 },
    ]);
    expect(body.errors).toEqual([
      {
        file: 'red.webp',
        item: 1,
        code: 'ingest_format_unsupported',
        message: 'image/webp images are not decoded by the image-metadata pipeline, which reads PNG, JPEG, GIF, BMP: convert the image first.',
      },
    ]);

    const inv = await doc('invoice.png');
    expect(inv.file).toEqual({
      name: 'invoice.png',
      type: 'image/png',
      bytes: invoice.length,
      sha256: sha(invoice),
      format: 'png',
      width: expect.any(Number),
      height: expect.any(Number),
    });
    expect(inv._visual.text).toMatch(/Invoice 4521 total amount due/);
    expect(inv._visual).toMatchObject({ colors: ['white', 'black'], motifs: ['text'], errors: [] });
    expect(inv._visual.tags).toEqual(expect.arrayContaining(['invoice', 'total', 'amount']));
    expect(inv._visual.images).toEqual([
      expect.objectContaining({ field: 'file', sha256: sha(invoice), format: 'png', motifs: ['text'], ocrConfidence: expect.any(Number) }),
    ]);
    const towel = await doc('towel.png');
    expect(towel._visual).toMatchObject({ colors: ['red', 'white'], motifs: ['horizontal_stripes'], keywords: ['red striped', 'white striped'] });
    expect((await doc('navy.jpg')).file).toMatchObject({ type: 'image/jpeg', format: 'jpeg', width: 320, height: 240 });
    expect((await doc('navy.jpg'))._visual.colors).toEqual(['navy']);
    // Declared as octet-stream: the file name says BMP.
    expect((await doc('yellow.bmp')).file).toMatchObject({ type: 'image/bmp', format: 'bmp' });
    expect(await doc('t1')).toEqual({ id: 't1', title: 'a text document' });

    // The metadata is searchable and filterable like visual extraction's.
    expect(await ids({ q: 'invoice amount', fields: ['_visual.text'] })).toEqual(['invoice.png']);
    expect(await ids({ q: '', filter: { eq: { '_visual.colors': 'red' } } })).toEqual(['towel.png']);
    expect(await ids({ q: '', filter: { eq: { '_visual.motifs': 'text' } } })).toEqual(['invoice.png']);
  }, 120_000);

  it('takes a raw image body: the id from ?id=, else the SHA-256 of the bytes; a GIF is read too', async () => {
    const named = await send(`${f.console}/v1/ingest/media?id=bread`, { raw: new Uint8Array(bread), headers: { 'content-type': 'image/png' } });
    expect(named.status).toBe(200);
    expect(named.body).toMatchObject({
      items: 1,
      indexed: 1,
      failed: 0,
      errors: [],
      files: [{ name: null, format: 'image', items: 1, indexed: 1, failed: 0, id: 'bread' }],
    });
    const bread1 = await doc('bread');
    expect(bread1.file).toEqual({
      type: 'image/png',
      bytes: bread.length,
      sha256: sha(bread),
      format: 'png',
      width: expect.any(Number),
      height: expect.any(Number),
    });
    expect(bread1._visual.text).toMatch(/Fresh bread daily/);

    const gif = render(['-size', '100x80', 'xc:lime'], 'gif');
    const anonymous = await send(`${f.console}/v1/ingest/media`, { raw: new Uint8Array(gif), headers: { 'content-type': 'image/gif' } });
    expect(anonymous.body.files).toEqual([{ name: null, format: 'image', items: 1, indexed: 1, failed: 0, id: sha(gif) }]);
    expect((await doc(sha(gif))).file).toMatchObject({ type: 'image/gif', format: 'gif', width: 100, height: 80 });

    // ?format=image on octet-stream: the decoder reads the format from the bytes.
    const sniffed = await send(`${f.console}/v1/ingest/media?format=image&id=sniffed`, {
      raw: new Uint8Array(stripes),
      headers: { 'content-type': 'application/octet-stream' },
    });
    expect(sniffed.body).toMatchObject({ indexed: 1 });
    expect((await doc('sniffed')).file).toMatchObject({ type: 'image/png', format: 'png' });
  }, 60_000);

  it('fails an image that cannot be decoded alone, and refuses WebP and TIFF bodies by name (415)', async () => {
    const broken = await send(`${f.console}/v1/ingest/media?id=broken`, {
      raw: new Uint8Array(invoice.subarray(0, 200)),
      headers: { 'content-type': 'image/png' },
    });
    expect(broken.status).toBe(200);
    expect(broken.body).toMatchObject({ items: 1, indexed: 0, failed: 1 });
    expect(broken.body.errors).toEqual([{ file: null, item: 1, code: 'invalid_image', message: expect.stringContaining('The image cannot be decoded') }]);
    expect(await doc('broken')).toBeUndefined();

    for (const [bytes, type] of [
      [webp, 'image/webp'],
      [tiff, 'image/tiff'],
    ] as const) {
      const refused = await send(`${f.console}/v1/ingest/media`, { raw: new Uint8Array(bytes), headers: { 'content-type': type } });
      expect(refused.status).toBe(415);
      expect(refused.body.error).toMatchObject({
        code: 'ingest_format_unsupported',
        message: `${type} images are not decoded by the image-metadata pipeline, which reads PNG, JPEG, GIF, BMP: convert the image first.`,
      });
    }
  });

  it('bounds each image (maxImageBytes) and the images of a request (maxImages)', async () => {
    // 800x800 of noise is well over the 400,000-byte limit set for this fleet.
    const big = render(['-size', '800x800', 'xc:', '+noise', 'Random']);
    expect(big.length).toBeGreaterThan(400_000);
    const raw = await send(`${f.console}/v1/ingest/media?id=big`, { raw: new Uint8Array(big), headers: { 'content-type': 'image/png' } });
    expect(raw.status).toBe(413);
    expect(raw.body.error).toMatchObject({ code: 'image_too_large', message: `The image is ${big.length} bytes; the limit is 400000 bytes.` });

    const form = new FormData();
    form.append('file', blob(big, 'image/png'), 'big.png');
    for (let i = 1; i <= 6; i++) form.append('file', blob(render(['-size', '40x40', `xc:rgb(${i * 30},0,0)`]), 'image/png'), `small-${i}.png`);
    const { status, body } = await send(`${f.console}/v1/ingest/media`, { raw: form });
    expect(status).toBe(200);
    expect(body).toMatchObject({ items: 7, indexed: 5, failed: 2 });
    expect(body.errors).toEqual([
      { file: 'big.png', item: 1, code: 'image_too_large', message: `The image is ${big.length} bytes; the limit is 400000 bytes.` },
      { file: 'small-6.png', item: 1, code: 'too_many_images', message: 'Only the first 6 images of a request are read (maxImages).' },
    ]);
    expect(await doc('big.png')).toBeUndefined();
    expect(await doc('small-5.png')).toMatchObject({ file: { name: 'small-5.png', width: 40, height: 40 } });
    expect(await doc('small-6.png')).toBeUndefined();
  }, 60_000);

  it('reports the index size in bytes, growing with its documents', async () => {
    const info = (await send(`${f.search}/v1/indexes/media`)).body.index;
    const { bytes, sizes } = info.stats;
    expect(bytes).toBe(sizes.documents + sizes.segments + sizes.tombstones + sizes.graphs + sizes.other);
    expect(Date.parse(sizes.measuredAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(sizes.documents).toBeGreaterThan(1000);
    expect(sizes.segments).toBeGreaterThan(0);
    await send(`${f.search}/v1/indexes/media/documents`, { body: [{ id: 'long', title: 'x'.repeat(50_000) }] });
    const after = (await send(`${f.search}/v1/indexes/media`)).body.index.stats;
    expect(after.sizes.documents - sizes.documents).toBeGreaterThan(50_000);
    const listed = (await send(`${f.search}/v1/indexes`)).body.indexes.find((i: { name: string }) => i.name === 'media');
    expect(listed.stats.bytes).toBe(after.bytes);
  });
});
