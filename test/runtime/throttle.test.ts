import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Throttle } from '../../runtime/throttle.js';
import { createTestApp, json, type TestApp } from '../helpers/app.js';

describe('Throttle', () => {
  it('hands a released slot to the oldest waiter and refuses beyond the queue', async () => {
    const throttle = new Throttle({ light: { concurrency: 1, queue: 1 }, standard: { concurrency: 1, queue: 0 }, heavy: { concurrency: 1, queue: 0 } });
    expect(throttle.acquire('light')).toBeUndefined();
    const waiting = throttle.acquire('light');
    expect(waiting).toBeInstanceOf(Promise);
    expect(() => throttle.acquire('light')).toThrowError(expect.objectContaining({ code: 'throttled', status: 429 }));
    expect(throttle.stats('light')).toMatchObject({ active: 1, queued: 1 });
    throttle.release('light');
    await waiting;
    expect(throttle.stats('light')).toMatchObject({ active: 1, queued: 0 });
    throttle.release('light');
    expect(throttle.stats('light')).toMatchObject({ active: 0, queued: 0 });
  });
});

describe('Throttle queue', () => {
  const tiers = (maxWaitMs?: number) => ({
    light: { concurrency: 1, queue: 4, ...(maxWaitMs ? { maxWaitMs } : {}) },
    standard: { concurrency: 1, queue: 0 },
    heavy: { concurrency: 1, queue: 0 },
  });

  it('lets a request whose client went away leave the queue without a slot', async () => {
    const throttle = new Throttle(tiers());
    throttle.acquire('light');
    const client = new AbortController();
    const waiting = throttle.acquire('light', client.signal)!;
    const behind = throttle.acquire('light')!;
    expect(throttle.stats('light').queued).toBe(2);
    client.abort();
    expect(await waiting).toBe(false);
    expect(throttle.stats('light')).toMatchObject({ active: 1, queued: 1 });
    throttle.release('light');
    expect(await behind).toBe(true);
    expect(throttle.stats('light')).toMatchObject({ active: 1, queued: 0 });
  });

  it('refuses with 429 a request that waited longer than maxWaitMs', async () => {
    const throttle = new Throttle(tiers(50));
    throttle.acquire('light');
    await expect(throttle.acquire('light')).rejects.toMatchObject({ code: 'throttled', status: 429, details: { tier: 'light', waitedMs: 50 } });
    expect(throttle.stats('light')).toMatchObject({ active: 1, queued: 0 });
  });

  it('refuses each waiter at its own deadline, and never one that was granted its slot', async () => {
    const throttle = new Throttle(tiers(80));
    throttle.acquire('light');
    const first = throttle.acquire('light') as Promise<boolean>;
    const firstOutcome = first.then(
      () => 'granted',
      (err: { code: string }) => err.code,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    const second = throttle.acquire('light') as Promise<boolean>;
    const secondOutcome = second.then(
      () => 'granted',
      (err: { code: string }) => err.code,
    );
    // The first waiter's time is up at ~80 ms; the second, queued 50 ms later, is still waiting then.
    expect(await firstOutcome).toBe('throttled');
    expect(throttle.stats('light')).toMatchObject({ active: 1, queued: 1 });
    throttle.release('light');
    expect(await secondOutcome).toBe('granted');
    // Past the second waiter's deadline: holding its slot, it is not refused afterwards.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(throttle.stats('light')).toMatchObject({ active: 1, queued: 0 });
  });

  it('wakes the next waiter from a macrotask, never inside the releasing continuation', async () => {
    const throttle = new Throttle(tiers());
    throttle.acquire('light');
    const order: string[] = [];
    void (throttle.acquire('light') as Promise<boolean>).then(() => order.push('granted'));
    throttle.release('light');
    await Promise.resolve();
    await Promise.resolve();
    order.push('microtasks done');
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['microtasks done', 'granted']);
  });
});

describe('throttling over HTTP', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      listeners: [{ name: 'main', port: 0, plugins: ['kitchen'] }],
      plugins: { kitchen: { module: './plugins/kitchen/index.js' } },
      limits: { throttle: { heavy: { concurrency: 2, queue: 3 } } },
    });
  });
  afterAll(() => t.stop());

  it('answers a burst over limit + queue with 429 and Retry-After at once, then recovers', async () => {
    const started = Date.now();
    const burst = await Promise.all(Array.from({ length: 12 }, () => fetch(`${t.url()}/slow?ms=300`)));
    const statuses = burst.map((r) => r.status).sort();
    // 2 run, 3 wait their turn, the other 7 are refused.
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(7);
    const refused = burst.find((r) => r.status === 429)!;
    expect(refused.headers.get('retry-after')).toBe('1');
    expect((await json(refused)).error).toEqual({
      code: 'throttled',
      message: 'Too many concurrent "heavy" requests; retry after 1s.',
      details: { tier: 'heavy' },
    });
    // Queued requests were served after the first two, not dropped: three rounds of 300 ms.
    expect(Date.now() - started).toBeGreaterThanOrEqual(850);

    // Other tiers are unaffected during a burst, and the heavy tier is free again afterwards.
    const health = await fetch(`${t.url()}/health`);
    expect(health.status).toBe(200);
    const after = await Promise.all(Array.from({ length: 5 }, () => fetch(`${t.url()}/slow?ms=10`)));
    expect(after.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
  });
});

describe('CPU-bound requests and the event loop', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      listeners: [{ name: 'main', port: 0, plugins: ['kitchen'] }],
      plugins: { kitchen: { module: './plugins/kitchen/index.js' } },
      limits: { throttle: { heavy: { concurrency: 2, queue: 20 } } },
    });
  });
  afterAll(() => t.stop());

  it('answers /health between queued main-thread requests, not after all of them', async () => {
    // The probe lives in another process (this one's event loop is the server's, busy burning) and
    // holds its connection open beforehand, as a load balancer's health checker does.
    const { port } = new URL(t.url());
    const probe = spawn(process.execPath, [
      '-e',
      `const s = require('node:net').connect(${port}, '127.0.0.1', () => process.stdout.write('ready\\n'));
       process.stdin.once('data', () => s.write('GET /health HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\n\\r\\n'));
       s.once('data', (d) => process.exit(String(d).startsWith('HTTP/1.1 200') ? 0 : 1));`,
    ]);
    const probed = new Promise<number | null>((resolve) => probe.on('exit', resolve));
    await new Promise((resolve) => probe.stdout.once('data', resolve));
    const burns = Array.from({ length: 16 }, () => fetch(`${t.url()}/burn?ms=150`).then((r) => r.status));
    setTimeout(() => probe.stdin.write('go\n'), 200);
    expect(await Promise.all(burns)).toEqual(Array(16).fill(200));
    expect(await probed).toBe(0);
    // In the server's own order of answers, the probe came before most of the burns finished.
    const answered = t.logs.filter((l) => l.msg === 'request').map((l) => l.route);
    const burnsAfter = answered.slice(answered.lastIndexOf('/health')).filter((r) => r === '/burn').length;
    expect(burnsAfter).toBeGreaterThanOrEqual(8);
  });

  it('does no work for queued requests whose clients have gone', async () => {
    const before = (await json(await fetch(`${t.url()}/burned`))).burned as number;
    const clients = Array.from({ length: 6 }, () => new AbortController());
    const requests = clients.map((c) =>
      fetch(`${t.url()}/burn?ms=200`, { signal: c.signal }).then(
        (r) => r.status,
        () => 'aborted',
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 60));
    for (const c of clients.slice(2)) c.abort();
    const outcomes = await Promise.all(requests);
    expect(outcomes.slice(0, 2)).toEqual([200, 200]);
    // Let anything the server still had run, then count the runs.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const after = (await json(await fetch(`${t.url()}/burned`))).burned as number;
    expect(after - before).toBe(2);
  });
});
