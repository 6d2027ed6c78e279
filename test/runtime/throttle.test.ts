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
