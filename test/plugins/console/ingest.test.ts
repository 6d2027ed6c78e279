import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonItems } from '../../../plugins/console/ingest-formats.js';
import { send, startFleet, type Fleet } from './support.js';

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

/** The same bytes cut into chunks of `size` (1 cuts between every pair of bytes). */
async function* chunked(text: string, size: number): AsyncGenerator<Uint8Array> {
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

describe('POST /v1/ingest/{index}', () => {
  let f: Fleet;
  beforeAll(async () => {
    f = await startFleet();
    const created = await send(`${f.search}/v1/indexes`, {
      body: { name: 'books', mappings: { title: { type: 'text' }, year: { type: 'number' }, inPrint: { type: 'boolean' }, genre: { type: 'keyword' } } },
    });
    expect(created.status).toBe(200);
  });
  afterAll(() => f.stop());

  const ingest = (raw: string | FormData, type?: string, query = '') =>
    send(`${f.console}/v1/ingest/books${query}`, { raw, ...(type ? { headers: { 'content-type': type } } : {}) });
  const doc = async (id: string) => (await send(`${f.search}/v1/indexes/books/documents/${id}`)).body.document;

  it('indexes an NDJSON body line by line and reports each bad line with its number', async () => {
    const { status, body } = await ingest(
      '{"id":"n1","title":"The Sea","year":1951}\n\nnot json\n{"id":"n2","title":"Whale","year":"x"}\n{"id":"n3","title":"Ahab"}\n',
      'application/x-ndjson',
    );
    expect(status).toBe(200);
    expect(body).toMatchObject({ ok: true, items: 4, indexed: 2, failed: 2, files: [{ name: null, format: 'ndjson', items: 4, indexed: 2, failed: 2 }] });
    expect(body.errors).toEqual([
      { file: null, item: 2, line: 3, code: 'invalid_json', message: expect.stringContaining('Line 3 is not valid JSON') },
      { file: null, item: 3, line: 4, id: 'n2', code: 'validation_failed', message: 'Field "year" (number) expects a finite number, got string "x"' },
    ]);
    expect(await doc('n1')).toEqual({ id: 'n1', title: 'The Sea', year: 1951 });
    expect(await doc('n3')).toEqual({ id: 'n3', title: 'Ahab' });
  });

  it('types CSV cells by the index mappings, leaves empty cells out, and fails a short row alone', async () => {
    const csv =
      'id,title,year,inPrint,genre\r\nc1,"Moby-Dick, or The Whale",1851,true,fiction\r\nc2,Cod,,FALSE,history\r\nc3,short\r\nc4,"Line\nbreak",1990,false,7\r\n';
    const { status, body } = await ingest(csv, 'text/csv');
    expect(status).toBe(200);
    expect(body).toMatchObject({ items: 4, indexed: 3, failed: 1 });
    expect(body.errors).toEqual([{ file: null, item: 3, line: 4, code: 'csv_row_invalid', message: 'Row 3 (line 4) has 2 cells; the header has 5.' }]);
    expect(await doc('c1')).toEqual({ id: 'c1', title: 'Moby-Dick, or The Whale', year: 1851, inPrint: true, genre: 'fiction' });
    expect(await doc('c2')).toEqual({ id: 'c2', title: 'Cod', inPrint: false, genre: 'history' });
    expect(await doc('c4')).toEqual({ id: 'c4', title: 'Line\nbreak', year: 1990, inPrint: false, genre: '7' });
  });

  it('reads a JSON array item by item: a bad item fails alone, and a single document is accepted', async () => {
    const { body } = await ingest('[{"id":"j1","title":"a"}, 5, {"id":"j2","title":"b [with] {braces} \\"quoted\\""}]', 'application/json');
    expect(body).toMatchObject({ items: 3, indexed: 2, failed: 1, errors: [{ item: 2, code: 'invalid_document' }] });
    expect(await doc('j2')).toEqual({ id: 'j2', title: 'b [with] {braces} "quoted"' });
    const single = await ingest('{"id":"j3","title":"one"}', 'application/json');
    expect(single.body).toMatchObject({ items: 1, indexed: 1, failed: 0 });
  });

  it('cuts JSON arrays the same whatever the chunk boundaries', async () => {
    const text = '[ {"a":"x,]}\\"y"} , [1,[2]] ,"s",3 ]';
    for (const size of [1, 2, 3, 7, 100]) {
      const items = await collect(jsonItems(chunked(text, size), 1024));
      expect(
        items.map((i) => i.doc),
        `chunks of ${size}`,
      ).toEqual([{ a: 'x,]}"y' }, [1, [2]], 's', 3]);
    }
  });

  it('stops a malformed JSON array where it breaks, keeping the items before it', async () => {
    const { status, body } = await ingest('[{"id":"k1","title":"kept"} {"id":"k2"}]', 'application/json');
    expect(status).toBe(400);
    expect(body.error.code).toBe('ingest_json_invalid');
    expect(body.error.message).toBe('JSON body: expected "," or "]" after item 1.');
    expect(body.error.details).toMatchObject({ items: 1, indexed: 1, failed: 0, brokenAt: 2 });
    expect(await doc('k1')).toEqual({ id: 'k1', title: 'kept' });
  });

  it('takes several files in one multipart upload, each by its type or extension; a file of no known type or a broken image fails alone', async () => {
    const form = new FormData();
    form.append('file', new Blob(['{"id":"m1","title":"from ndjson"}\n'], { type: 'application/octet-stream' }), 'a.ndjson');
    form.append('file', new Blob(['id,title\nm2,from csv\n'], { type: 'text/csv' }), 'b.csv');
    form.append('file', new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], { type: 'image/png' }), 'c.png');
    form.append('file', new Blob(['[{"id":"m3","title":"from json"}]'], { type: 'application/json' }), 'd.json');
    form.append('file', new Blob(['hello'], { type: 'text/plain' }), 'e.txt');
    const { status, body } = await ingest(form);
    expect(status).toBe(200);
    expect(body.files).toEqual([
      { name: 'a.ndjson', format: 'ndjson', items: 1, indexed: 1, failed: 0 },
      { name: 'b.csv', format: 'csv', items: 1, indexed: 1, failed: 0 },
      { name: 'c.png', format: 'image', items: 1, indexed: 0, failed: 1 },
      { name: 'd.json', format: 'json', items: 1, indexed: 1, failed: 0 },
      { name: 'e.txt', format: 'unknown', items: 0, indexed: 0, failed: 1 },
    ]);
    expect(body.errors).toEqual([
      { file: 'c.png', item: 1, code: 'invalid_image', message: 'The image cannot be decoded: not a PNG, JPEG, GIF or BMP image' },
      {
        file: 'e.txt',
        item: 0,
        code: 'ingest_format_unsupported',
        message: expect.stringContaining('File "e.txt" (text/plain) is not JSON, NDJSON, CSV or an image'),
      },
    ]);
    expect(await doc('m2')).toEqual({ id: 'm2', title: 'from csv' });
  });

  it('answers 400 ingest_multipart_invalid for multipart without a boundary or with a broken body', async () => {
    const noBoundary = await ingest('x', 'multipart/form-data');
    expect(noBoundary.status).toBe(400);
    expect(noBoundary.body.error).toMatchObject({
      code: 'ingest_multipart_invalid',
      message: 'The multipart body cannot be read: Multipart: Boundary not found',
    });
    const cut = await ingest('--b\r\nContent-Disposition: form-data; name="file"; filename="a.ndjson"\r\n\r\n{"id":"z"}', 'multipart/form-data; boundary=b');
    expect(cut.status).toBe(400);
    expect(cut.body.error.code).toBe('ingest_multipart_invalid');
  });

  it('answers 404 for an unknown index and 415 for a body that is not JSON, NDJSON or CSV', async () => {
    const missing = await send(`${f.console}/v1/ingest/nope`, { raw: '{}', headers: { 'content-type': 'application/json' } });
    expect(missing.status).toBe(404);
    expect(missing.body.error).toEqual({ code: 'index_not_found', message: 'Index "nope" does not exist.', details: { index: 'nope' } });
    const octet = await ingest('abc', 'application/octet-stream');
    expect(octet.status).toBe(415);
    expect(octet.body.error.code).toBe('ingest_format_unsupported');
    const forced = await ingest('id,title\nf1,forced\n', 'application/octet-stream', '?format=csv');
    expect(forced.body).toMatchObject({ items: 1, indexed: 1 });
  });

  it('streams a large NDJSON body in batches without holding it (50,000 documents)', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 50_000; i++) lines.push(JSON.stringify({ id: `big${i}`, title: `document number ${i}`, year: i }));
    const { body } = await ingest(lines.join('\n'), 'application/x-ndjson');
    expect(body).toMatchObject({ items: 50_000, indexed: 50_000, failed: 0 });
    const info = await send(`${f.search}/v1/indexes/books`);
    expect(info.body.index.docCount).toBeGreaterThanOrEqual(50_000);
    // Batches of 500: one segment each before merges, so the stream was applied as it arrived.
    expect(info.body.index.stats.segments).toBeGreaterThan(1);
  });
});
