import { request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// helpers first: it loads the runtime, which loads reflect-metadata before tsyringe is imported.
import { call, startRbac, type RbacApp } from './helpers.js';
import { BruteForceGuard } from '../../../plugins/rbac/brute-force.js';

/** A GET from another loopback address (Linux routes all of 127/8 to lo). */
function getFrom(localAddress: string, url: string, key: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { localAddress, headers: { 'x-api-key': key } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('brute-force throttling of failed key attempts per client address', () => {
  let r: RbacApp;
  let base: string;
  beforeAll(async () => {
    r = await startRbac({ options: { bruteForce: { maxFailures: 3, windowSeconds: 60, blockSeconds: 2 } } });
    base = r.t.url('hub');
  });
  afterAll(() => r.stop());

  it('does not count requests that carry no key', async () => {
    for (let i = 0; i < 5; i++) expect((await call(base, 'GET', '/hub/me')).body.error.code).toBe('missing_api_key');
    expect((await r.call('GET', '/hub/me')).status).toBe(200);
  });

  it('blocks the address after maxFailures failures: 429 too_many_auth_failures with Retry-After, valid keys included, then lets it in again', async () => {
    for (let i = 0; i < 3; i++) {
      expect((await call(base, 'GET', '/hub/me', { key: `tsk_guess${i}` })).status).toBe(401);
    }
    const blocked = await r.call('GET', '/hub/me');
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get('retry-after')).toBe('2');
    expect(blocked.body).toEqual({
      ok: false,
      error: {
        code: 'too_many_auth_failures',
        message: 'Too many failed API key attempts from this address; retry in 2 s.',
        details: { retryAfterSeconds: 2 },
      },
    });
    expect((await call(base, 'GET', '/hub/me', { key: 'tsk_guess-more' })).status).toBe(429);
    // Public routes stay open, and other addresses are not affected.
    expect((await fetch(`${base}/health`)).status).toBe(200);
    expect((await getFrom('127.0.0.2', `${base}/hub/me`, r.adminKey)).status).toBe(200);

    await sleep(2100);
    expect((await r.call('GET', '/hub/me')).status).toBe(200);
  });

  it('records the failures and the block in the audit log', async () => {
    const system = await r.call('GET', '/hub/rbac/audit?system=true');
    // Refusals of one address and route within a minute are one entry that counts them.
    const failed = system.body.entries.filter((e: any) => e.action === 'auth.failed');
    expect(failed.reduce((n: number, e: any) => n + e.details.count, 0)).toBe(3);
    const block = system.body.entries.find((e: any) => e.action === 'auth.blocked');
    expect(block).toEqual({
      id: expect.any(String),
      at: expect.any(String),
      tenant: null,
      action: 'auth.blocked',
      actor: null,
      target: null,
      ip: expect.stringMatching(/127\.0\.0\.1$/),
      requestId: expect.any(String),
      details: { blockSeconds: 2 },
    });
  });
});

describe('BruteForceGuard', () => {
  const options = { maxFailures: 3, windowSeconds: 10, blockSeconds: 30, maxTrackedAddresses: 100 };

  it('counts failures in a sliding window: old ones expire and never add up to a block', () => {
    let now = 0;
    const guard = new BruteForceGuard(options, () => now);
    for (let i = 0; i < 10; i++) {
      expect(guard.fail('a')).toBe(0);
      now += 6_000;
      expect(() => guard.check('a')).not.toThrow();
    }
  });

  it('blocks on the maxFailures-th failure within the window for blockSeconds, rounding Retry-After up', () => {
    let now = 0;
    const guard = new BruteForceGuard(options, () => now);
    expect([guard.fail('a'), guard.fail('a'), guard.fail('a')]).toEqual([0, 0, 30]);
    now = 500;
    expect(() => guard.check('a')).toThrowError(expect.objectContaining({ code: 'too_many_auth_failures', status: 429, headers: { 'retry-after': '30' } }));
    expect(() => guard.check('b')).not.toThrow();
    now = 30_000;
    expect(() => guard.check('a')).not.toThrow();
  });

  it('tracks at most maxTrackedAddresses, dropping the least recently failing', () => {
    const guard = new BruteForceGuard(options, () => 0);
    for (let i = 0; i < 150; i++) guard.fail(`10.0.0.${i}`);
    expect(guard.size).toBe(100);
  });
});
