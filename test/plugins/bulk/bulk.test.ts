import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import { createTestApp, json, postJson, tempDir, type TestApp } from '../../helpers/app.js';

const ndjson = (lines: unknown[]): string => lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n';

describe('bulk plugin', () => {
  let t: TestApp;
  let search: string;
  let bulk: string;
  beforeAll(async () => {
    t = await createTestApp({
      listeners: [
        { name: 'search', port: 0, plugins: ['search'] },
        { name: 'bulk', port: 0, plugins: ['bulk'] },
      ],
      plugins: { search: { options: { maxSegments: 4 } }, bulk: { options: { batchDocs: 3, maxLineBytes: 16_384 } } },
    });
    search = `${t.url('search')}/v1/indexes`;
    bulk = t.url('bulk');
    await fetch(search, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'books', mappings: { title: { type: 'text' }, year: { type: 'number' } } }),
    });
  });
  afterAll(() => t.stop());

  const post = (url: string, body: string): Promise<Response> => fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body });
  const searchIds = async (q: string): Promise<string[]> =>
    (
      await json(
        await fetch(`${search}/books/search`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ q, size: 100, select: ['id'] }),
        }),
      )
    ).hits
      .map((h: { id: string }) => h.id)
      .sort();

  it('applies index, create and delete actions in order and reports bad lines by number without stopping', async () => {
    const body = ndjson([
      { index: { _index: 'books', _id: '1' } },
      { title: 'Dune', year: 1965 },
      { index: { _index: 'books', _id: '2' } },
      { title: 'Dune Messiah', year: 'nineteen sixty-nine' },
      '{"index": {"_index": "books", "_id": "3"',
      { index: { _index: 'books', _id: '4' } },
      { title: 'Children of Dune', year: 1976 },
      { create: { _index: 'books', _id: '1' } },
      { title: 'Dune again' },
      { index: { _index: 'missing', _id: '9' } },
      { title: 'Nowhere' },
      { delete: { _index: 'books', _id: '4' } },
      { index: { _index: 'books', _id: '5' } },
      { title: 'God Emperor of Dune', year: 1981 },
    ]);
    const result = await json(await post(`${bulk}/v1/bulk`, body));
    expect(result).toMatchObject({ ok: true, indexed: 3, deleted: 1, failed: 4 });
    expect(result.errors.map((e: { line: number; code: string }) => [e.line, e.code])).toEqual([
      [4, 'validation_failed'],
      [5, 'invalid_json'],
      [9, 'document_exists'],
      [11, 'index_not_found'],
    ]);
    expect(await searchIds('dune')).toEqual(['1', '5']);
  });

  it('streams a plain document stream into one index, in batches, merging segments as it goes', async () => {
    const docs = Array.from({ length: 40 }, (_, i) => ({ id: `s${i}`, title: `stream document ${i}`, year: 2000 + i }));
    const result = await json(await post(`${search.replace(t.url('search'), bulk)}/books/bulk`, ndjson([...docs.slice(0, 20), 'not json', ...docs.slice(20)])));
    expect(result).toMatchObject({ ok: true, indexed: 40, failed: 1, errors: [{ line: 21, index: 'books', code: 'invalid_json' }] });
    expect((await searchIds('stream')).length).toBe(40);
    await new Promise((r) => setTimeout(r, 200));
    const stats = (await json(await fetch(`${search}/books`))).index.stats;
    expect(stats.segments).toBeLessThanOrEqual(4);
  });

  it('answers index_not_found for the per-index stream of an unknown index', async () => {
    const res = await post(`${bulk}/v1/indexes/nope/bulk`, ndjson([{ id: 'x' }]));
    expect(res.status).toBe(404);
    expect((await json(res)).error.code).toBe('index_not_found');
  });

  it('is mounted only on its own listener', async () => {
    expect((await post(`${t.url('search')}/v1/bulk`, '')).status).toBe(404);
  });

  it('refuses a create of an id still waiting in the same batch, and counts an action without index once', async () => {
    const body = ndjson([
      { create: { _index: 'books', _id: 'c1' } },
      { title: 'first' },
      { create: { _index: 'books', _id: 'c1' } },
      { title: 'second' },
      { index: { _id: 'x' } },
      { title: 'no index named' },
    ]);
    const result = await json(await post(`${bulk}/v1/bulk`, body));
    expect(result).toMatchObject({ indexed: 1, failed: 2 });
    expect(result.errors.map((e: { line: number; code: string }) => [e.line, e.code])).toEqual([
      [4, 'document_exists'],
      [5, 'invalid_action'],
    ]);
    const doc = await json(await fetch(`${search}/books/documents/c1`));
    expect(doc.document.title).toBe('first');
  });

  it('refuses a body that is not UTF-8 with invalid_utf8, and in bulk fails only the bad line', async () => {
    const bad = Buffer.concat([Buffer.from('[{"id":"cafe","title":"caf'), Buffer.from([0xe9]), Buffer.from('"}]')]);
    const direct = await fetch(`${search}/books/documents`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: bad });
    expect(direct.status).toBe(400);
    expect((await json(direct)).error).toMatchObject({ code: 'invalid_utf8', details: { offset: 26 } });
    expect((await fetch(`${search}/books/documents/cafe`)).status).toBe(404);

    const stream = Buffer.concat([
      Buffer.from(JSON.stringify({ id: 'u1', title: 'first' }) + '\n'),
      Buffer.from('{"id":"u2","title":"caf'),
      Buffer.from([0xe9]),
      Buffer.from('"}\n' + JSON.stringify({ id: 'u3', title: 'third' }) + '\n'),
    ]);
    const result = await json(
      await fetch(`${bulk}/v1/indexes/books/bulk`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: stream }),
    );
    expect(result).toMatchObject({ indexed: 2, failed: 1, errors: [{ line: 2, code: 'invalid_utf8' }] });
    expect((await fetch(`${search}/books/documents/u2`)).status).toBe(404);
    expect((await fetch(`${search}/books/documents/u3`)).status).toBe(200);

    const control = await fetch(`${search}/books/documents`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([{ id: 'a\u0001b', title: 'x' }]),
    });
    expect((await json(control)).errors).toMatchObject([{ position: 0, code: 'invalid_document_id' }]);
  });

  it('applies the lines before a line that is too long, then answers line_too_long with their results', async () => {
    const long = JSON.stringify({ id: 'huge', title: 'y'.repeat(20_000) });
    const res = await post(
      `${search.replace(t.url('search'), bulk)}/books/bulk`,
      ndjson([{ id: 'before', title: 'applied first' }, { id: 'bad', year: 'x' }, long]),
    );
    expect(res.status).toBe(400);
    const error = (await json(res)).error;
    expect(error).toMatchObject({
      code: 'line_too_long',
      details: { line: 3, limit: 16_384, linesRead: 2, indexed: 1, failed: 1, errors: [{ line: 2, code: 'validation_failed' }] },
    });
    expect((await fetch(`${search}/books/documents/before`)).status).toBe(200);
  });
});

describe('bulk stream during shutdown', () => {
  it('stops at a line boundary, writes what it read and answers 503 interrupted with linesRead, within the drain', async () => {
    const dataDir = tempDir();
    const manifest = {
      listeners: [
        { name: 'search', port: 0, plugins: ['search'] },
        { name: 'bulk', port: 0, plugins: ['bulk'] },
      ],
      plugins: { search: {}, bulk: { options: { batchDocs: 50 } } },
      limits: { shutdownTimeoutMs: 5000 },
    };
    const t = await createTestApp(manifest, { dataDir });
    await postJson(`${t.url('search')}/v1/indexes`, { name: 'stream', mappings: { title: { type: 'text' } } });
    // A client that keeps sending: 120 documents now, then nothing more until the server stops.
    const encoder = new TextEncoder();
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (sent >= 120) return new Promise(() => {});
        const chunk = Array.from({ length: 30 }, () => JSON.stringify({ id: `d${++sent}`, title: `document ${sent}` })).join('\n') + '\n';
        controller.enqueue(encoder.encode(chunk));
      },
    });
    const answer = fetch(`${t.url('bulk')}/v1/indexes/stream/bulk`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body,
      duplex: 'half',
    } as RequestInit);
    while (sent < 120) await new Promise((resolve) => setTimeout(resolve, 20));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const stopping = Date.now();
    const stopped = t.app.stop();
    const res = await answer;
    expect(res.status).toBe(503);
    const error = (await json(res)).error;
    expect(error).toMatchObject({ code: 'shutting_down', details: { interrupted: true, linesRead: 120, indexed: 120, failed: 0 } });
    await stopped;
    expect(Date.now() - stopping).toBeLessThan(5000);

    const again = await createTestApp(manifest, { dataDir });
    try {
      const found = await json(await postJson(`${again.url('search')}/v1/indexes/stream/search`, { q: 'document', size: 1 }));
      expect(found.total).toBe(120);
    } finally {
      await again.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
