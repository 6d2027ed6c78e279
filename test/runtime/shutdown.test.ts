import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createTestApp, json } from '../helpers/app.js';

describe('graceful shutdown', () => {
  it('finishes in-flight requests, answers 503 shutting_down to requests that arrive while draining, then closes', async () => {
    const t = await createTestApp({
      listeners: [{ name: 'main', port: 0, plugins: ['kitchen'] }],
      plugins: { kitchen: { module: './plugins/kitchen/index.js' } },
    });
    const { port } = t.app.addresses().main!;
    const slow = fetch(`${t.url()}/slow?ms=600`);
    await new Promise((r) => setTimeout(r, 100));

    // A connection that has sent half a request is not idle, so it survives the stop of accepting.
    const socket = connect(port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write('GET /health HTTP/1.1\r\nHost: localhost\r\n');
    let raw = '';
    socket.on('data', (chunk) => (raw += chunk.toString()));
    const socketClosed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    await new Promise((r) => setTimeout(r, 50));

    const stopped = t.stop();
    await new Promise((r) => setTimeout(r, 50));
    socket.write('\r\n');
    await socketClosed;

    expect(raw).toMatch(/^HTTP\/1\.1 503 /);
    expect(raw.toLowerCase()).toContain('connection: close');
    const body = JSON.parse(
      raw
        .slice(raw.indexOf('\r\n\r\n') + 4)
        .replace(/^[0-9a-f]+\r\n/, '')
        .replace(/\r\n0\r\n\r\n$/, ''),
    );
    expect(body).toEqual({ ok: false, error: { code: 'shutting_down', message: 'The server is shutting down and accepts no new requests.' } });

    const response = await slow;
    expect(await json(response)).toEqual({ ok: true, slept: 600 });
    await stopped;
    await expect(fetch(`${t.url()}/health`)).rejects.toThrow();
  });

  it('ends an endless event stream when draining starts instead of waiting for the timeout', async () => {
    const t = await createTestApp({
      listeners: [{ name: 'main', port: 0, plugins: ['kitchen'] }],
      plugins: { kitchen: { module: './plugins/kitchen/index.js' } },
      limits: { shutdownTimeoutMs: 20_000 },
    });
    const response = await fetch(`${t.url()}/forever`);
    const reader = response.body!.getReader();
    await reader.read();
    const started = Date.now();
    await t.stop();
    expect(Date.now() - started).toBeLessThan(2_000);
    let text = '';
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    expect(text === '' || text.includes('data: ')).toBe(true);
  });
});
