import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutboundClient } from '../../runtime/outbound/outbound-client.js';
import { isTesseraError } from '../../runtime/errors.js';

const defaults = { allowPrivate: false, allowHosts: [] as string[], timeoutMs: 2000, maxRedirects: 3, maxBytes: 1024 };

async function refusal(p: Promise<unknown>): Promise<{ code: string; status: number; details: unknown }> {
  try {
    await p;
  } catch (err) {
    if (isTesseraError(err)) return { code: err.code, status: err.status, details: err.details };
    throw err;
  }
  throw new Error('the call went through');
}

describe('ctx.outbound', () => {
  let server: Server;
  let base: string;
  let port: number;
  const seen: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(req.url!);
      if (req.url === '/hello') return res.end('hello');
      if (req.url === '/agent') return res.end(req.headers['user-agent']);
      if (req.url === '/hop') return res.writeHead(302, { location: '/hello' }).end();
      if (req.url === '/to-metadata') return res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      if (req.url === '/loop') return res.writeHead(302, { location: '/loop' }).end();
      if (req.url === '/big') return res.end('x'.repeat(5000));
      if (req.url === '/big-chunked') {
        res.write('x'.repeat(800));
        res.write('x'.repeat(800));
        return res.end();
      }
      if (req.url === '/slow') return void setTimeout(() => res.end('late'), 3000);
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
    base = `http://127.0.0.1:${port}`;
  });
  afterAll(() => new Promise((r) => server.close(r)));

  it("refuses callers' destinations on loopback, private and link-local addresses, by IP, by name and after DNS", async () => {
    const client = createOutboundClient(defaults, 'Tessera/test');
    for (const url of [
      `${base}/hello`,
      'http://10.0.0.1/',
      'http://169.254.169.254/latest/meta-data/',
      'http://[::1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://0.0.0.0/',
      `http://localhost:${port}/hello`,
    ]) {
      expect(await refusal(client.fetch(url))).toEqual({ code: 'egress_denied', status: 403, details: { url: new URL(url).href, reason: 'private_address' } });
    }
    expect(seen).toEqual([]);
    await client.close();
  });

  it('refuses a name that resolves to loopback at connect time, as DNS rebinding would make it', async (context) => {
    // The machine's own name resolves to 127.0.0.1 through /etc/hosts here: an ordinary name, not "localhost".
    const name = hostname();
    const resolved = await lookup(name).catch(() => undefined);
    if (!resolved || !resolved.address.startsWith('127.')) return context.skip(`"${name}" does not resolve to a loopback address on this machine`);
    const client = createOutboundClient(defaults, 'Tessera/test');
    expect(client.check(`http://${name}:${port}/hello`)).toEqual({ allowed: true });
    expect(await refusal(client.fetch(`http://${name}:${port}/hello`))).toEqual({
      code: 'egress_denied',
      status: 403,
      details: { url: `http://${name}:${port}/hello`, reason: 'private_address' },
    });
    expect(seen).toEqual([]);
    await client.close();
  });

  it('refuses other schemes and credentials in the URL', async () => {
    const client = createOutboundClient(defaults, 'Tessera/test');
    expect((await refusal(client.fetch('file:///etc/passwd'))).details).toEqual({ url: 'file:///etc/passwd', reason: 'scheme' });
    expect((await refusal(client.fetch('http://user:secret@example.com/'))).details).toMatchObject({ reason: 'credentials_in_url' });
    expect(client.check('ftp://example.com/')).toEqual({ allowed: false, reason: 'scheme' });
    expect(client.check('https://example.com/')).toEqual({ allowed: true });
    await client.close();
  });

  it("lets the allow-list (or allowPrivate, or a plugin's own allowance) reach a private host, and sends its User-Agent", async () => {
    const listed = createOutboundClient({ ...defaults, allowHosts: [`127.0.0.1:${port}`] }, 'Tessera/9.9.9');
    expect(await (await listed.fetch(`${base}/agent`)).text()).toBe('Tessera/9.9.9');
    const open = createOutboundClient({ ...defaults, allowPrivate: true }, 'Tessera/test');
    expect(await (await open.fetch(`${base}/hello`)).text()).toBe('hello');
    const strict = createOutboundClient(defaults, 'Tessera/test');
    expect(await (await strict.fetch(`${base}/hello`, { allow: { allowHosts: ['127.0.0.0/8'] } })).text()).toBe('hello');
    expect(await (await strict.fetch(`${base}/hello`, { trusted: true })).text()).toBe('hello');
    await Promise.all([listed.close(), open.close(), strict.close()]);
  });

  it('checks every redirect hop like the first URL, and stops after maxRedirects', async () => {
    const client = createOutboundClient({ ...defaults, allowHosts: [`127.0.0.1:${port}`] }, 'Tessera/test');
    const followed = await client.fetch(`${base}/hop`);
    expect({ status: followed.status, url: followed.url, redirects: followed.redirects, body: await followed.text() }).toEqual({
      status: 200,
      url: `${base}/hello`,
      redirects: [`${base}/hop`],
      body: 'hello',
    });
    expect((await refusal(client.fetch(`${base}/to-metadata`))).details).toEqual({
      url: 'http://169.254.169.254/latest/meta-data/',
      reason: 'private_address',
    });
    expect((await refusal(client.fetch(`${base}/loop`))).details).toEqual({ url: `${base}/loop`, reason: 'redirect_limit' });
    const manual = await client.fetch(`${base}/hop`, { redirect: 'manual' });
    expect({ status: manual.status, location: manual.headers.get('location') }).toEqual({ status: 302, location: '/hello' });
    await client.close();
  });

  it('bounds the body (declared or streamed) and the time', async () => {
    const client = createOutboundClient({ ...defaults, allowHosts: [`127.0.0.1:${port}`] }, 'Tessera/test');
    expect(await refusal(client.fetch(`${base}/big`))).toEqual({ code: 'upstream_too_large', status: 502, details: { url: `${base}/big` } });
    const chunked = await client.fetch(`${base}/big-chunked`);
    expect(await refusal(chunked.text())).toMatchObject({ code: 'upstream_too_large' });
    const started = Date.now();
    expect(await refusal(client.fetch(`${base}/slow`, { timeoutMs: 200 }))).toEqual({
      code: 'upstream_timeout',
      status: 504,
      details: { url: `${base}/slow` },
    });
    expect(Date.now() - started).toBeLessThan(1500);
    expect(await refusal(client.fetch('http://127.0.0.1:1/', { trusted: true }))).toMatchObject({ code: 'upstream_unreachable', status: 502 });
    await client.close();
  });
});
