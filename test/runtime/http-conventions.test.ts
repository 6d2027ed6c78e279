import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, json, type TestApp } from '../helpers/app.js';

describe('HTTP conventions', () => {
  let t: TestApp;
  let base: string;

  beforeAll(async () => {
    t = await createTestApp({
      listeners: [{ name: 'main', port: 0, plugins: ['kitchen'] }],
      plugins: { kitchen: { module: './plugins/kitchen/index.js' } },
      limits: { bodyBytes: 2048 },
    });
    base = t.url();
  });
  afterAll(() => t.stop());

  it('answers success bodies with ok: true and a generated x-request-id', async () => {
    const res = await fetch(`${base}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'a', count: 2 }) });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(await json(res)).toEqual({ ok: true, echo: { name: 'a', count: 2 } });
  });

  it('keeps the x-request-id the client sends', async () => {
    const res = await fetch(`${base}/health`, { headers: { 'x-request-id': 'client-abc.123' } });
    expect(res.headers.get('x-request-id')).toBe('client-abc.123');
  });

  it('replaces a client request id that is not a safe token', async () => {
    const res = await fetch(`${base}/health`, { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(res.headers.get('x-request-id')).not.toBe('bad id with spaces');
  });

  it("answers /health with the union of both seeds' fields", async () => {
    const body = await json(await fetch(`${base}/health`));
    expect(Object.keys(body).sort()).toEqual(['memory', 'ok', 'status', 'storage', 'uptime', 'uptimeMs']);
    expect(body).toMatchObject({ ok: true, status: 'ok', storage: 'lmdb' });
    expect(typeof body.uptime).toBe('number');
    expect(body.uptimeMs).toBeGreaterThanOrEqual(0);
    expect(body.memory.rssMb).toBeGreaterThan(0);
    expect(body.memory.heapUsedMb).toBeGreaterThan(0);
  });

  it("returns 201 from reply() and 409 with the plugin's own code", async () => {
    const created = await fetch(`${base}/things`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"id":"x"}' });
    expect(created.status).toBe(201);
    expect(await json(created)).toEqual({ ok: true, id: 'x' });
    const conflict = await fetch(`${base}/things`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"id":"taken"}' });
    expect(conflict.status).toBe(409);
    expect(await json(conflict)).toEqual({ ok: false, error: { code: 'thing_exists', message: 'Thing "taken" exists.', details: { id: 'taken' } } });
  });

  it('400 invalid_json for a malformed body', async () => {
    const res = await fetch(`${base}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name": "a",' });
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(body.ok).toBe(false);
    expect(body.error.code).toBe('invalid_json');
    expect(body.error.message).toMatch(/^Request body is not valid JSON/);
  });

  it('400 validation_failed naming the path of each bad field', async () => {
    const res = await fetch(`${base}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: '', count: -1, tags: ['ok', 3], extra: true }),
    });
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(body.error.code).toBe('validation_failed');
    const paths = body.error.details.issues.map((i: { path: string }) => i.path).sort();
    expect(paths).toEqual(['body.count', 'body.extra', 'body.name', 'body.tags[1]']);
  });

  it('400 validation_failed for a bad query string', async () => {
    const res = await fetch(`${base}/query?n=zero`);
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(body.error.code).toBe('validation_failed');
    expect(body.error.details.issues[0].path).toBe('query.n');
    expect((await json(await fetch(`${base}/query?n=3`))).n).toBe(3);
  });

  it('404 route_not_found for an unknown path', async () => {
    const res = await fetch(`${base}/nope`);
    expect(res.status).toBe(404);
    expect(await json(res)).toEqual({ ok: false, error: { code: 'route_not_found', message: 'No route for GET /nope on this listener.' } });
  });

  it('405 method_not_allowed with an Allow header', async () => {
    const res = await fetch(`${base}/kv/a`, { method: 'POST' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD, PUT');
    const body = await json(res);
    expect(body.error.code).toBe('method_not_allowed');
    expect(body.error.details).toEqual({ allow: ['GET', 'HEAD', 'PUT'] });
  });

  it('413 body_too_large from Content-Length, before reading the body', async () => {
    const res = await fetch(`${base}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'x'.repeat(5000), count: 1 }),
    });
    expect(res.status).toBe(413);
    expect((await json(res)).error).toEqual({ code: 'body_too_large', message: 'Request body exceeds the limit of 2048 bytes.', details: { limit: 2048 } });
  });

  it('413 body_too_large while streaming a chunked body with no Content-Length', async () => {
    let sent = 0;
    const chunk = new TextEncoder().encode(`${'{"a":1}\n'.repeat(1024)}`); // 8 KiB
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 1024) return controller.close(); // would be 8 MiB whole
        sent++;
        controller.enqueue(chunk);
      },
    });
    const res = await fetch(`${base}/lines`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect((await json(res)).error.code).toBe('body_too_large');
    expect(sent).toBeLessThan(1024);
  });

  it('streams an accepted body to the handler', async () => {
    const body = '{"a":1}\n{"b":2}\n{"c":3}\n';
    const res = await fetch(`${base}/lines`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body });
    expect(await json(res)).toEqual({ ok: true, bytes: body.length, lines: 3 });
  });

  it('415 unsupported_media_type for a JSON route sent text/plain', async () => {
    const res = await fetch(`${base}/echo`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{"name":"a","count":1}' });
    expect(res.status).toBe(415);
    expect((await json(res)).error).toEqual({
      code: 'unsupported_media_type',
      message: 'Content-Type "text/plain" is not accepted here; send application/json.',
      details: { received: 'text/plain', accepted: ['application/json'] },
    });
  });

  it('415 for a stream route sent the wrong type', async () => {
    const res = await fetch(`${base}/lines`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(415);
    expect((await json(res)).error.details.accepted).toEqual(['application/x-ndjson']);
  });

  it('500 internal_error with the request id and no stack or message leak; the stack is logged', async () => {
    const res = await fetch(`${base}/boom`, { headers: { 'x-request-id': 'boom-1' } });
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('at ');
    expect(JSON.parse(text)).toEqual({
      ok: false,
      error: { code: 'internal_error', message: 'Internal error. Quote request id boom-1 when reporting it.', details: { requestId: 'boom-1' } },
    });
    const logged = t.logs.find((l) => l.msg === 'unhandled error' && l.reqId === 'boom-1') as { err: { stack: string } } | undefined;
    expect(logged?.err.stack).toContain('hunter2');
  });

  it('logs one structured line per request with method, route pattern, status, ms and request id', async () => {
    await fetch(`${base}/kv/some-key`, { headers: { 'x-request-id': 'log-check' } });
    const line = t.logs.find((l) => l.msg === 'request' && l.reqId === 'log-check');
    expect(line).toMatchObject({ level: 'info', method: 'GET', route: '/kv/:key', status: 404, listener: 'main' });
    expect(typeof line!.ms).toBe('number');
  });

  it('adds and removes routes while serving', async () => {
    expect((await fetch(`${base}/dyn/one`)).status).toBe(404);
    const add = await fetch(`${base}/routes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"path":"/dyn/one"}' });
    expect(add.status).toBe(201);
    expect(await json(await fetch(`${base}/dyn/one`))).toEqual({ ok: true, dynamic: '/dyn/one' });
    const openapi = await json(await fetch(`${base}/openapi.json`));
    expect(Object.keys(openapi.paths)).toContain('/dyn/one');
    expect((await fetch(`${base}/routes?path=/dyn/one`, { method: 'DELETE' })).status).toBe(200);
    expect((await fetch(`${base}/dyn/one`)).status).toBe(404);
  });

  it('streams Server-Sent Events and resumes after Last-Event-ID', async () => {
    const all = await (await fetch(`${base}/events`)).text();
    expect(all.match(/^id: \d$/gm)).toEqual(['id: 1', 'id: 2', 'id: 3', 'id: 4', 'id: 5']);
    const res = await fetch(`${base}/events`, { headers: { 'last-event-id': '3' } });
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(await res.text()).toBe('retry: 2000\n\nid: 4\nevent: tick\ndata: {"n":4}\n\nid: 5\nevent: tick\ndata: {"n":5}\n\n');
  });

  it('describes its routes in OpenAPI 3.1 with request schemas', async () => {
    const doc = await json(await fetch(`${base}/openapi.json`));
    expect(doc.openapi).toBe('3.1.0');
    const echo = doc.paths['/echo'].post;
    expect(echo.requestBody.content['application/json'].schema).toMatchObject({
      type: 'object',
      required: ['name', 'count'],
      additionalProperties: false,
    });
    expect(doc.paths['/kv/{key}'].get.parameters).toEqual([{ name: 'key', in: 'path', required: true, schema: { type: 'string' } }]);
    expect(doc.paths['/health'].get['x-permission']).toBe('public');
  });

  it('gives a handler the raw text of a JSON body the runtime already parsed', async () => {
    const res = await fetch(`${base}/echo-raw`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name": "raw"}' });
    expect(await json(res)).toEqual({ ok: true, parsed: { name: 'raw' }, raw: '{"name": "raw"}' });
  });

  it('answers 400 invalid_request for a path parameter with malformed percent-encoding, through the pipeline', async () => {
    const res = await fetch(`${base}/kv/%zz`, { headers: { 'x-request-id': 'bad-url' } });
    expect(res.headers.get('x-request-id')).toBe('bad-url');
    expect(res.status).toBe(400);
    expect((await json(res)).error).toMatchObject({ code: 'invalid_request', details: { param: 'key' } });
    expect(t.logs.some((l) => l.msg === 'request' && l.reqId === 'bad-url' && l.route === '/kv/:key' && l.status === 400)).toBe(true);
  });

  it('answers 431 headers_too_large with a JSON body when the headers overflow, 400 for an unparseable request', async () => {
    const { port } = new URL(base);
    const rawExchange = (payload: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1', () => socket.end(payload));
        let text = '';
        socket.on('data', (c) => (text += c));
        socket.on('close', () => resolve(text));
        socket.on('error', reject);
      });
    const big = await rawExchange(`GET /health HTTP/1.1\r\nHost: x\r\nx-big: ${'a'.repeat(100_000)}\r\n\r\n`);
    expect(big.startsWith('HTTP/1.1 431')).toBe(true);
    expect(JSON.parse(big.slice(big.indexOf('\r\n\r\n') + 4))).toMatchObject({ ok: false, error: { code: 'headers_too_large' } });
    const garbage = await rawExchange('NOT HTTP AT ALL\r\n\r\n');
    expect(garbage.startsWith('HTTP/1.1 400')).toBe(true);
    expect(JSON.parse(garbage.slice(garbage.indexOf('\r\n\r\n') + 4))).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
  });

  it('answers only its allowed Host names (DNS rebinding) and, with auth off, only its own Origin', async () => {
    const ask = (headers: Record<string, string>) =>
      new Promise<{ status: number; body: any }>((resolve, reject) => {
        const req = httpRequest(base, { path: '/health', headers }, (res) => {
          let text = '';
          res.on('data', (c) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
        });
        req.on('error', reject);
        req.end();
      });
    const { port } = new URL(base);
    expect((await ask({ host: `localhost:${port}` })).status).toBe(200);
    expect((await ask({ host: `[::1]:${port}` })).status).toBe(200);
    const rebound = await ask({ host: `attacker.example:${port}` });
    expect(rebound.status).toBe(403);
    expect(rebound.body.error).toMatchObject({ code: 'host_not_allowed', details: { host: `attacker.example:${port}` } });
    expect((await ask({ host: `127.0.0.1:${port}`, origin: `http://127.0.0.1:${port}` })).status).toBe(200);
    const crossSite = await ask({ host: `127.0.0.1:${port}`, origin: 'https://attacker.example' });
    expect(crossSite.status).toBe(403);
    expect(crossSite.body.error.code).toBe('origin_not_allowed');
    expect((await ask({ host: `127.0.0.1:${port}`, origin: 'null' })).status).toBe(403);
  });

  it('routes on the raw path: dot segments and encoded slashes are parameter values', async () => {
    // fetch() would normalise `%2E%2E` away (WHATWG URL); a raw client sends the path as written.
    const raw = (method: string, rawPath: string, body?: unknown) =>
      new Promise<{ status: number; body: any }>((resolve, reject) => {
        const req = httpRequest(base, { method, path: rawPath, headers: body === undefined ? {} : { 'content-type': 'application/json' } }, (res) => {
          let text = '';
          res.on('data', (c) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
        });
        req.on('error', reject);
        req.end(body === undefined ? undefined : JSON.stringify(body));
      });
    expect((await raw('PUT', '/kv/%2E%2E', { value: 'encoded' })).body).toEqual({ ok: true, stored: '..' });
    expect((await raw('GET', '/kv/..')).body).toEqual({ ok: true, key: '..', value: 'encoded' });
    expect((await raw('PUT', '/kv/.', { value: 'dot' })).body).toEqual({ ok: true, stored: '.' });
    expect((await raw('GET', '/kv/%2e')).body).toEqual({ ok: true, key: '.', value: 'dot' });
    expect((await raw('PUT', '/kv/a%2Fb', { value: 'slash' })).body).toEqual({ ok: true, stored: 'a/b' });
    expect((await raw('GET', '/kv/a%2fb')).body).toEqual({ ok: true, key: 'a/b', value: 'slash' });
    // Never a step up the route tree.
    expect((await raw('GET', '/kv/x/..')).status).toBe(404);
  });

  it('answers 409 plugin_route_conflict when a route added while serving collides', async () => {
    const add = (): Promise<Response> =>
      fetch(`${base}/routes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"path":"/dyn/twice"}' });
    expect((await add()).status).toBe(201);
    const again = await add();
    expect(again.status).toBe(409);
    expect((await json(again)).error.code).toBe('plugin_route_conflict');
  });

  it('sends arrays and other non-plain values as they are, without merging ok', async () => {
    const doc = await json(await fetch(`${base}/openapi.json`));
    expect(doc.paths['/metrics'].get.responses['200'].content).toEqual({ 'text/plain; version=0.0.4': { schema: { type: 'string' } } });
  });
});
