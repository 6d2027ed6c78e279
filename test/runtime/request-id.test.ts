import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RequestIdResponse } from '../../runtime/node-response.js';
import { newRequestId } from '../../runtime/request-id.js';

describe('request ids', () => {
  it('are UUID-shaped (version 8), share the process prefix, and never repeat', () => {
    const ids = Array.from({ length: 100_000 }, () => newRequestId());
    for (const id of [ids[0]!, ids[255]!, ids[256]!, ids.at(-1)!]) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids.map((id) => id.slice(0, 24))).size).toBe(1);
    // The counter runs on across the 256-id blocks the suffix is made in.
    expect(parseInt(ids[256]!.slice(24), 16) - parseInt(ids[255]!.slice(24), 16)).toBe(1);
  });
});

/** The raw response headers (name, value, ...) of a GET of `path`. */
function rawHeaders(server: Server, path: string): Promise<string[]> {
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    request({ port, host: '127.0.0.1', path }, (res) => {
      res.resume();
      resolve(res.rawHeaders);
    })
      .on('error', reject)
      .end();
  });
}

describe('the listener response writes the request id with the status line', () => {
  let server: Server;
  beforeAll(async () => {
    server = createServer({ ServerResponse: RequestIdResponse }, (req: IncomingMessage, res: ServerResponse) => {
      (res as RequestIdResponse).requestId = 'ours-1';
      if (req.url === '/list') res.writeHead(200, ['content-type', 'text/plain']).end('x');
      else if (req.url === '/nested') res.writeHead(200, 'OK', [['content-type', 'text/plain']] as unknown as string[]).end('x');
      else if (req.url === '/object') res.writeHead(200, { 'content-type': 'text/plain' }).end('x');
      else if (req.url === '/implicit') res.end('x');
      else if (req.url === '/set-by-handler') {
        res.setHeader('X-Request-Id', 'theirs');
        res.writeHead(200, ['content-type', 'text/plain']).end('x');
      } else if (req.url === '/listed-by-handler') res.writeHead(200, ['X-Request-ID', 'theirs']).end('x');
      else res.writeHead(200, { 'x-request-id': 'theirs' }).end('x');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const values = (headers: string[]): string[] => headers.flatMap((name, i) => (i % 2 === 0 && name.toLowerCase() === 'x-request-id' ? [headers[i + 1]!] : []));

  it('once, whatever form the head is written in (flat list, nested list, object, implicit)', async () => {
    for (const path of ['/list', '/nested', '/object', '/implicit']) {
      const headers = await rawHeaders(server, path);
      expect(values(headers), path).toEqual(['ours-1']);
    }
  });

  it("leaves the handler's own x-request-id in place, set or listed under any casing", async () => {
    for (const path of ['/set-by-handler', '/listed-by-handler', '/object-by-handler']) {
      expect(values(await rawHeaders(server, path)), path).toEqual(['theirs']);
    }
  });
});
