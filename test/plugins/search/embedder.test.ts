import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinEmbedder, openAiEmbedder, type Embedder } from '../../../plugins/search/embedders/embedder.js';
import { openDatabases } from '../../../plugins/search/index/index-record.js';
import { Store } from '../../../runtime/store.js';
import { trainCorpusLsa } from '../../../plugins/search/embedders/corpus-lsa.js';
import { embedText } from '../../../plugins/search/embedders/hashed-embedder.js';
import { emptyCorpus } from '../../../plugins/search/embedders/hashed-ngrams-v2.js';
import { createTestApp, json, postJson, tempDir, type TestApp } from '../../helpers/app.js';
import { defineConformance } from 'tessera-runtime/testing';

const DIMS = 32;

/** A local server speaking OpenAI's POST /v1/embeddings, with scripted failures. */
class EmbeddingsServer {
  requests: Array<{ auth: string | undefined; inputs: string[] }> = [];
  /** Answer the next N requests with this status first. */
  failures: Array<{ status: number; retryAfter?: string }> = [];
  private server?: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const parsed = JSON.parse(body) as { model: string; input: string[] };
        this.requests.push({ auth: req.headers.authorization, inputs: parsed.input });
        const failure = this.failures.shift();
        if (failure) {
          res.writeHead(failure.status, { 'content-type': 'application/json', ...(failure.retryAfter ? { 'retry-after': failure.retryAfter } : {}) });
          res.end(JSON.stringify({ error: { message: 'scripted failure' } }));
          return;
        }
        // Out of order on purpose: clients must use `index`.
        const data = parsed.input.map((text, index) => ({ object: 'embedding', index, embedding: Array.from(embedText(text, DIMS)) })).reverse();
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data, model: parsed.model }));
      });
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}/v1`;
  }

  async stop(): Promise<void> {
    await new Promise((r) => this.server?.close(r));
  }
}

/** What every embedder must do; each implementation runs it (tessera-runtime/testing's defineConformance). */
const embedderConformance = defineConformance<Embedder>('embedder', {
  'returns one finite vector of the index dimension per text, in order, deterministically': async (e) => {
    const texts = ['wing flutter', 'boundary layer', 'wing flutter'];
    const vectors = await e.embed(texts);
    expect(vectors).toHaveLength(3);
    for (const v of vectors) {
      expect(v).toHaveLength(DIMS);
      expect(v.every(Number.isFinite)).toBe(true);
    }
    expect(vectors[0]).toEqual(vectors[2]);
    expect(vectors[0]).not.toEqual(vectors[1]);
    expect(await e.embed([])).toEqual([]);
  },
  'embeds a query, when it has a query side, as a finite vector of the index dimension, deterministically': async (e) => {
    if (!e.embedQuery) return;
    const q = await e.embedQuery('wing flutter');
    expect(q).toHaveLength(DIMS);
    expect(q.every(Number.isFinite)).toBe(true);
    expect(q).toEqual(await e.embedQuery('wing flutter'));
    expect(q).not.toEqual(await e.embedQuery('boundary layer'));
  },
});

const server = new EmbeddingsServer();
beforeAll(() => server.start());
afterAll(() => server.stop());

embedderConformance('builtin hashed-ngrams-v1', () => builtinEmbedder(DIMS, 'hashed-ngrams-v1'));
embedderConformance('builtin hashed-ngrams-v2', () => builtinEmbedder(DIMS, 'hashed-ngrams-v2'));
embedderConformance('builtin corpus-lsa-v1, untrained (as v2)', () => builtinEmbedder(DIMS, 'corpus-lsa-v1'));
const trained = trainCorpusLsa(
  ['wing flutter at transonic speed', 'the laminar boundary layer of a flat plate', 'flutter of a swept wing', 'boundary layer transition'],
  emptyCorpus.analyzers,
  DIMS,
);
embedderConformance('builtin corpus-lsa-v1, trained', async () => builtinEmbedder(DIMS, 'corpus-lsa-v1', { ...emptyCorpus, model: await trained }));
embedderConformance('openai', () => openAiEmbedder({ baseUrl: server.url, model: 'test-embed', batchSize: 2, dims: DIMS, backoffMs: 1 }));

describe('openai embedder', () => {
  it('batches, sends the key from the named environment variable, and matches the built-in vectors the server computes', async () => {
    process.env.TEST_EMBED_KEY = 'sk-test-123';
    server.requests = [];
    const e = openAiEmbedder({ baseUrl: `${server.url}/`, model: 'test-embed', apiKeyEnv: 'TEST_EMBED_KEY', batchSize: 2, dims: DIMS, backoffMs: 1 });
    const vectors = await e.embed(['a', 'b', 'c', 'd', 'e']);
    expect(server.requests.map((r) => r.inputs.length)).toEqual([2, 2, 1]);
    expect(server.requests.every((r) => r.auth === 'Bearer sk-test-123')).toBe(true);
    expect(vectors[4]).toEqual(Array.from(embedText('e', DIMS)));
  });

  it('retries 429 and 5xx with backoff, honouring Retry-After, then succeeds', async () => {
    server.requests = [];
    server.failures = [{ status: 429, retryAfter: '0' }, { status: 503 }];
    const e = openAiEmbedder({ baseUrl: server.url, model: 'm', batchSize: 8, dims: DIMS, backoffMs: 1 });
    expect(await e.embed(['x'])).toHaveLength(1);
    expect(server.requests).toHaveLength(3);
  });

  it('gives up with embedding_failed saying what the endpoint answered, and does not retry a 400', async () => {
    server.failures = [{ status: 500 }, { status: 500 }, { status: 500 }];
    const e = openAiEmbedder({ baseUrl: server.url, model: 'm', batchSize: 8, dims: DIMS, backoffMs: 1, attempts: 3 });
    await expect(e.embed(['x'])).rejects.toMatchObject({ code: 'embedding_failed', message: 'Embedder "openai:m" failed: HTTP 500.' });
    server.requests = [];
    server.failures = [{ status: 400 }];
    await expect(e.embed(['x'])).rejects.toMatchObject({ code: 'embedding_failed' });
    expect(server.requests).toHaveLength(1);
  });

  it('refuses vectors of the wrong dimension', async () => {
    const e = openAiEmbedder({ baseUrl: server.url, model: 'm', batchSize: 8, dims: DIMS + 1, backoffMs: 1 });
    await expect(e.embed(['x'])).rejects.toMatchObject({ code: 'embedding_failed', message: expect.stringContaining('vectorDimensions 33') });
  });
});

describe('autoEmbed through an embedder the manifest names', () => {
  let t: TestApp;
  let base: string;
  const dataDir = tempDir();
  // A port nothing listens on: the embedder "down" is unreachable.
  let closedPort = 0;
  const manifest = (): Record<string, unknown> => ({
    listeners: [{ name: 'search', port: 0, plugins: ['search'] }],
    plugins: {
      search: {
        options: {
          embedders: {
            local: { type: 'openai', baseUrl: server.url, model: 'test-embed', batchSize: 16, dimensions: DIMS },
            down: { type: 'openai', baseUrl: `http://127.0.0.1:${closedPort}/v1`, model: 'm', timeoutMs: 2000 },
          },
        },
      },
    },
  });
  beforeAll(async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    closedPort = (probe.address() as AddressInfo).port;
    await new Promise((r) => probe.close(r));
    t = await createTestApp(manifest(), { dataDir });
    base = `${t.url()}/v1/indexes`;
    const created = await postJson(base, {
      name: 'remote',
      mappings: { title: { type: 'text' } },
      settings: { vectorDimensions: DIMS, autoEmbed: true, embedder: 'local' },
    });
    expect(created.status).toBe(200);
    expect((await json(created)).index.settings.embedder).toBe('local');
  });
  afterAll(() => t.stop());

  it('embeds documents and queries through the endpoint', async () => {
    const res = await json(
      await postJson(`${base}/remote/documents`, [
        { id: 'a', title: 'supersonic wing flutter' },
        { id: 'b', title: 'tomato soup recipe' },
      ]),
    );
    expect(res.errors).toEqual([]);
    const found = await json(await postJson(`${base}/remote/search`, { mode: 'semantic', q: 'wing flutter', size: 1 }));
    expect(found.hits[0].id).toBe('a');
  });

  it('fails only the documents that needed the endpoint, naming the embedder and the status, never relaying its body', async () => {
    server.failures = Array.from({ length: 8 }, () => ({ status: 503, retryAfter: '0' }));
    const res = await json(
      await postJson(`${base}/remote/documents`, [
        { id: 'c', title: 'needs embedding' },
        { id: 'd', title: 'own vector', _vector: new Array(DIMS).fill(0.1) },
      ]),
    );
    server.failures = [];
    expect(res.indexed).toBe(1);
    expect(res.ids).toEqual(['d']);
    expect(res.errors).toEqual([{ position: 0, id: 'c', code: 'embedding_failed', message: 'Embedder "local" failed: HTTP 503.' }]);
    // What the endpoint said is for the operator: in the log, not in the answer.
    expect(t.logs.some((l) => l.msg === 'embedding endpoint failed' && String(l.body).includes('scripted failure'))).toBe(true);
  });

  it('says "unreachable" for an endpoint that refuses connections, as it says a status for one that answers', async () => {
    expect((await postJson(base, { name: 'gone', settings: { vectorDimensions: DIMS, autoEmbed: true, embedder: 'down' } })).status).toBe(200);
    const res = await json(await postJson(`${base}/gone/search`, { mode: 'semantic', q: 'anything' }));
    expect(res.error).toMatchObject({ code: 'embedding_failed', message: 'Embedder "down" failed: unreachable.' });
  });

  it("takes a named embedder's declared dimensions when vectorDimensions is left out, and asks for it when none is declared", async () => {
    const created = await postJson(base, { name: 'sized', settings: { autoEmbed: true, embedder: 'local' } });
    expect(created.status).toBe(200);
    expect((await json(created)).index.settings).toMatchObject({ vectorDimensions: DIMS, vectorMetric: 'cosine' });
    const unsized = await postJson(base, { name: 'unsized', settings: { autoEmbed: true, embedder: 'down' } });
    expect(unsized.status).toBe(400);
    expect((await json(unsized)).error).toMatchObject({ code: 'validation_failed', details: { issues: [{ path: 'settings.vectorDimensions' }] } });
  });

  it('refuses settings that carry an endpoint, unknown names and a dimension mismatch with embedder_not_allowed', async () => {
    process.env.TEST_PLANTED_SECRET = 'planted-demo-secret-123';
    server.requests = [];
    const inline = { type: 'openai', baseUrl: server.url, model: 'x', apiKeyEnv: 'TEST_PLANTED_SECRET' };
    const created = await postJson(base, { name: 'planted', settings: { vectorDimensions: DIMS, autoEmbed: true, embedder: inline } });
    expect(created.status).toBe(400);
    expect((await json(created)).error).toMatchObject({ code: 'embedder_not_allowed', details: { path: 'settings.embedder' } });
    const patched = await fetch(`${base}/remote`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ settings: { embedder: inline } }),
    });
    expect(patched.status).toBe(400);
    expect((await json(patched)).error.code).toBe('embedder_not_allowed');
    expect(server.requests).toEqual([]);
    const unknown = await json(await postJson(base, { name: 'u', settings: { vectorDimensions: DIMS, autoEmbed: true, embedder: 'elsewhere' } }));
    expect(unknown.error).toMatchObject({ code: 'embedder_not_allowed', details: { embedder: 'elsewhere', defined: ['down', 'local'] } });
    const mismatch = await json(await postJson(base, { name: 'm', settings: { vectorDimensions: DIMS + 1, autoEmbed: true, embedder: 'local' } }));
    expect(mismatch.error).toMatchObject({ code: 'embedder_not_allowed', message: expect.stringContaining(`${DIMS} dimensions`) });
    // The built-in keeps its own name.
    const builtin = await json(await postJson(base, { name: 'b', settings: { vectorDimensions: DIMS, autoEmbed: true, embedder: 'builtin' } }));
    expect(builtin.index.settings.embedder).toEqual({ type: 'builtin', model: 'corpus-lsa-v1' });
  });

  it('keeps an index stored with an inline endpoint working, with a start-up warning naming it', async () => {
    await t.stop();
    const store = Store.open(dataDir);
    const dbs = openDatabases(store.namespace('search'));
    const record = dbs.indexes.get(['default', 'remote'])!;
    await dbs.indexes.put(['default', 'remote'], {
      ...record,
      settings: { ...record.settings, embedder: { type: 'openai', baseUrl: server.url, model: 'test-embed', batchSize: 16 } },
    });
    await store.close();
    t = await createTestApp(manifest(), { dataDir });
    base = `${t.url()}/v1/indexes`;
    const warning = t.logs.find((l) => String(l.msg).startsWith('indexes call an embedding endpoint written in their own settings'));
    expect(warning?.indexes).toEqual(['default/remote']);
    expect((await json(await postJson(`${base}/remote/documents`, [{ id: 'e', title: 'wing flutter again' }]))).errors).toEqual([]);
    // Other settings still change; the inline endpoint stays until the operator names one.
    const patched = await fetch(`${base}/remote`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ settings: { k1: 1.3 } }),
    });
    expect(patched.status).toBe(200);
  });
});
