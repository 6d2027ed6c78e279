import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, json, postJson, tempDir, type TestApp } from '../../helpers/app.js';

// A settings or mappings change re-indexes every stored document; when some cannot be re-indexed
// the change is refused as a whole and the index keeps serving as it was, across a restart too.
describe('a settings change that cannot re-index every document', () => {
  const dataDir = tempDir();
  let upstream: Server;
  let upstreamUrl = '';
  let t: TestApp;
  let base: string;
  const manifest = (): Record<string, unknown> => ({
    listeners: [{ name: 'search', port: 0, plugins: ['search'] }],
    plugins: { search: { options: { embedders: { failing: { type: 'openai', baseUrl: upstreamUrl, model: 'm' } } } } },
  });
  const docs = Array.from({ length: 300 }, (_, i) => ({ id: `d${i}`, title: `wing flutter ${i}`, year: i === 17 || i === 250 ? 'unknown' : 1950 + (i % 60) }));
  const patch = (body: unknown): Promise<Response> =>
    fetch(`${base}/v1/indexes/books`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const unchanged = async (): Promise<void> => {
    const index = (await json(await fetch(`${base}/v1/indexes/books`))).index;
    expect(index.docCount).toBe(300);
    expect(index.settings.autoEmbed).toBe(false);
    expect(index.mappings.year).toBeUndefined();
    const found = await json(await postJson(`${base}/v1/indexes/books/search`, { q: 'flutter', size: 1 }));
    expect(found.total).toBe(300);
  };

  beforeAll(async () => {
    upstream = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end('{"error":"model overloaded"}');
      });
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`;
    t = await createTestApp(manifest(), { dataDir });
    base = t.url();
    expect((await postJson(`${base}/v1/indexes`, { name: 'books', mappings: { title: { type: 'text' } } })).status).toBe(200);
    expect((await json(await postJson(`${base}/v1/indexes/books/documents`, docs))).errors).toEqual([]);
  });
  afterAll(async () => {
    await t.stop();
    await new Promise((r) => upstream.close(r));
  });

  it('answers 502 embedding_failed when autoEmbed cannot embed the documents, and changes nothing', async () => {
    const res = await patch({ settings: { vectorDimensions: 8, autoEmbed: true, embedder: 'failing' } });
    expect(res.status).toBe(502);
    const body = await json(res);
    expect(body.error).toMatchObject({ code: 'embedding_failed', details: { failed: 300 } });
    expect(body.error.message).toContain('Embedder "failing" failed: HTTP 500.');
    expect(body.error.message).not.toContain('overloaded');
    await unchanged();
  });

  it('answers 422 reindex_failed naming the documents a new mapping does not fit, and changes nothing', async () => {
    const res = await patch({ mappings: { year: { type: 'number' } } });
    expect(res.status).toBe(422);
    const body = await json(res);
    expect(body.error.code).toBe('reindex_failed');
    expect(body.error.details.failed).toBe(2);
    expect(body.error.details.documents.map((d: { id: string }) => d.id)).toEqual(['d17', 'd250']);
    await unchanged();
  });

  it('is still unchanged after a restart, and a change the documents fit goes through', async () => {
    await t.stop();
    t = await createTestApp(manifest(), { dataDir });
    base = t.url();
    await unchanged();
    const res = await patch({ mappings: { year: { type: 'keyword' } } });
    expect(res.status).toBe(200);
    expect((await json(res)).reindexed).toBe(true);
    const found = await json(await postJson(`${base}/v1/indexes/books/search`, { q: 'flutter', filter: { eq: { year: 'unknown' } } }));
    expect(found.hits.map((h: { id: string }) => h.id).sort()).toEqual(['d17', 'd250']);
    // The re-index ran as a `reindex` job of the search plugin (its progress shows while it runs).
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toMatch(/^tessera_jobs_finished_total\{[^}]*job="reindex"[^}]*state="completed"[^}]*\} 1$/m);
  });
});
