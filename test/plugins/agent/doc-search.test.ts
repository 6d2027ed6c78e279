import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgent, type AgentApp } from './support.js';

describe('agent documentation search tool', () => {
  let t: AgentApp;
  let searx: Server;
  const searxQueries: string[] = [];
  beforeAll(async () => {
    // SearXNG's JSON API: GET /search?q=...&format=json -> {query, results: [{title, url, content, engine, score}]}
    searx = createServer((req, res) => {
      const url = new URL(req.url!, 'http://x');
      searxQueries.push(`${url.pathname}?${url.searchParams.toString()}`);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          query: url.searchParams.get('q'),
          results: [
            {
              title: 'asyncio — Asynchronous I/O',
              url: 'https://docs.python.org/3/library/asyncio.html',
              content: 'asyncio is a library to write concurrent code.',
              engine: 'duckduckgo',
              score: 1.5,
            },
          ],
        }),
      );
    });
    await new Promise<void>((r) => searx.listen(0, '127.0.0.1', r));
    t = await startAgent({ searxngUrl: `http://127.0.0.1:${(searx.address() as AddressInfo).port}` }, { listenerPlugins: ['agent', 'search'] });
    // The docs index as the crawler fills it (url, title, description, content).
    expect(
      (
        await t.call('POST', '/v1/indexes', {
          name: 'docs',
          mappings: { url: { type: 'keyword' }, title: { type: 'text' }, description: { type: 'text' }, content: { type: 'text' } },
        })
      ).status,
    ).toBe(200);
    const docs = [
      {
        id: 'd1',
        url: 'https://docs.local/locks',
        title: 'Locks and mutexes',
        description: 'Guarding shared state',
        content: 'A mutex guards the session map against concurrent writers.',
      },
      { id: 'd2', url: 'https://docs.local/retry', title: 'Retries', description: 'Backoff', content: 'Retry with exponential backoff and jitter.' },
    ];
    expect((await t.call('POST', '/v1/indexes/docs/documents', { documents: docs })).status).toBe(200);
  });
  afterAll(async () => {
    await t.stop();
    await new Promise((r) => searx.close(r));
  });

  it('answers from the docs index and from SearXNG with title, url, snippet and source', async () => {
    const res = await t.call('POST', '/api/v1/tools/search', { query: 'mutex session', limit: 5 });
    expect(res.status).toBe(200);
    expect(res.body.backends).toEqual({ index: 'ok', searxng: 'ok' });
    expect(res.body.results).toEqual([
      {
        title: 'Locks and mutexes',
        url: 'https://docs.local/locks',
        snippet: expect.stringContaining('mutex guards the session map'),
        source: 'index:docs',
        score: expect.any(Number),
      },
      {
        title: 'asyncio — Asynchronous I/O',
        url: 'https://docs.python.org/3/library/asyncio.html',
        snippet: 'asyncio is a library to write concurrent code.',
        source: 'searxng',
        score: 1.5,
      },
    ]);
    expect(searxQueries.at(-1)).toBe('/search?q=mutex+session&format=json');
  });

  it('answers 409 tool_disabled once switched off (persisted), and works again when switched on', async () => {
    const off = await t.call('POST', '/api/v1/tools/search/toggle', { enabled: false });
    expect(off.body.tool).toEqual({ name: 'search', enabled: false, index: 'docs', backends: ['index', 'searxng'] });
    const refused = await t.call('POST', '/api/v1/tools/search', { query: 'retry' });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toEqual({ code: 'tool_disabled', message: 'The search tool is disabled for this tenant.', details: { tool: 'search' } });
    await t.call('POST', '/api/v1/tools/search/toggle', { enabled: true });
    expect((await t.call('POST', '/api/v1/tools/search', { query: 'retry' })).status).toBe(200);
  });
});
