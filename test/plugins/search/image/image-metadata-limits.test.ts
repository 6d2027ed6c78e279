import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, json, postJson, type TestApp } from '../../../helpers/app.js';
import { noImageMagick, render, renderText } from '../../../../bench/image/imagemagick.js';

/** A local image server: /ok.png, /big.png, /to-metadata (redirects to 169.254.169.254), /missing. */
function imageServer(png: Buffer): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    if (req.url === '/ok.png') res.writeHead(200, { 'content-type': 'image/png' }).end(png);
    else if (req.url === '/big.png') res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.alloc(300_000, 7));
    else if (req.url === '/to-metadata') res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
    else if (req.url === '/to-loopback') res.writeHead(302, { location: `http://127.0.0.1:${(server.address() as AddressInfo).port}/ok.png` }).end();
    else res.writeHead(404).end('no');
  });
  // Reached as "localhost", the one host the app allow-lists: 127.0.0.1 itself stays blocked.
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, origin: `http://localhost:${(server.address() as AddressInfo).port}` })),
  );
}

describe.skipIf(noImageMagick !== '')('image-metadata: remote images, capacity and a failing OCR worker', () => {
  const png = renderText('Remote poster', { size: 30 });
  // Rendered up front: rendering takes seconds, long enough for a kept-alive socket to expire meanwhile.
  const large = render(['-size', '2000x1200', 'plasma:red-blue'], 'jpg');
  let site: { server: Server; origin: string };
  let remote: TestApp;
  let tight: TestApp;

  beforeAll(async () => {
    site = await imageServer(png);
    remote = await createTestApp({
      listeners: [{ name: 'search', port: 0, plugins: ['search'] }],
      plugins: { search: { options: { allowRemoteImages: true, images: { remoteHosts: ['localhost'], maxBytes: 200_000 } } } },
      kernels: { threads: 1 },
    });
    tight = await createTestApp({
      listeners: [{ name: 'search', port: 0, plugins: ['search'] }],
      plugins: { search: { options: { images: { workers: 1, maxQueue: 0, ocrTimeoutMs: 10 } } } },
      kernels: { threads: 1 },
    });
  }, 60_000);
  afterAll(async () => {
    await remote.stop();
    await tight.stop();
    await new Promise((r) => site.server.close(r));
  });

  const analyse = async (app: TestApp, body: unknown): Promise<{ status: number; body: any; headers: Headers }> => {
    const res = await postJson(`${app.url()}/v1/tools/image-metadata`, body);
    return { status: res.status, body: await json(res), headers: res.headers };
  };

  it('fetches an http URL from an allow-listed host', async () => {
    const { status, body } = await analyse(remote, { image: `${site.origin}/ok.png` });
    expect(status).toBe(200);
    expect(body.metadata.ocr.words).toEqual(['Remote', 'poster']);
  });

  it('blocks loopback, metadata and private addresses, also after a redirect (403 egress_denied)', async () => {
    const port = new URL(site.origin).port;
    for (const image of [
      `http://127.0.0.1:${port}/ok.png`,
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.1/x.png',
      `http://[::1]:${port}/ok.png`,
    ]) {
      const { status, body } = await analyse(remote, { image });
      expect(status, image).toBe(403);
      expect(body.error.code, image).toBe('egress_denied');
    }
    for (const hop of ['/to-metadata', '/to-loopback']) {
      const { status, body } = await analyse(remote, { image: `${site.origin}${hop}` });
      expect(status, hop).toBe(403);
      expect(body.error.code, hop).toBe('egress_denied');
    }
  });

  it('answers 413 for a download over maxBytes and 422 for a remote error status', async () => {
    const big = await analyse(remote, { image: `${site.origin}/big.png` });
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe('image_too_large');
    const missing = await analyse(remote, { image: `${site.origin}/missing` });
    expect(missing.status).toBe(422);
    expect(missing.body.error).toMatchObject({ code: 'invalid_image', details: { status: 404 } });
  });

  it('keeps serving other requests while a large image is analysed (decoding and OCR run on threads)', async () => {
    let analysed = false;
    const analysis = analyse(tight, { bufferBase64: large.toString('base64') }).then((r) => {
      analysed = true;
      return r;
    });
    await new Promise((r) => setTimeout(r, 50));
    const health = await fetch(`${tight.url()}/health`);
    expect(health.status).toBe(200);
    expect(analysed).toBe(false);
    const { status, body } = await analysis;
    expect(status).toBe(200);
    expect(body.metadata.image).toMatchObject({ format: 'jpeg', width: 2000, height: 1200 });
  });

  it('answers 429 with Retry-After when more images arrive than workers + maxQueue', async () => {
    const body = { bufferBase64: png.toString('base64') };
    const answers = await Promise.all([0, 1, 2, 3].map(() => analyse(tight, body)));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(1);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    expect(refused[0]!.headers.get('retry-after')).toBe('1');
    expect(refused[0]!.body.error.code).toBe('image_analysis_busy');
  });

  it('contains an OCR worker past its budget: ocr null with a warning, and the next request is served', async () => {
    const body = { bufferBase64: png.toString('base64') };
    for (let i = 0; i < 2; i++) {
      const { status, body: answer } = await analyse(tight, body);
      expect(status).toBe(200);
      expect(answer.metadata.ocr).toBeNull();
      expect(answer.warnings).toEqual([{ code: 'ocr_timeout', message: 'OCR took longer than 10 ms' }]);
      expect(answer.metadata.colors[0]).toBe('white');
    }
    const health = await json(await fetch(`${tight.url()}/health`));
    expect(health.status).toBe('ok');
  });
});
