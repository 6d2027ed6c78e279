import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// helpers first: it loads the runtime, which loads reflect-metadata before tsyringe is imported.
import { call, startRbac, type RbacApp } from './helpers.js';
import { clientAddress, parseTrustedProxies } from '../../../plugins/rbac/client-address.js';

describe('trustedProxies', () => {
  it('believes X-Forwarded-For only from a trusted peer, right to left, skipping trusted hops', () => {
    const proxies = parseTrustedProxies(['127.0.0.1', '10.0.0.0/8', '::1']);
    const xff = (v: string) => new Headers({ 'x-forwarded-for': v });
    expect(clientAddress('127.0.0.1', xff('203.0.113.9'), proxies)).toBe('203.0.113.9');
    // The left-most entries are the client's own words: the right-most untrusted hop wins.
    expect(clientAddress('127.0.0.1', xff('1.1.1.1, 203.0.113.9, 10.1.2.3'), proxies)).toBe('203.0.113.9');
    expect(clientAddress('::ffff:127.0.0.1', xff('198.51.100.4'), proxies)).toBe('198.51.100.4');
    // An untrusted peer's header is ignored; so is every header when nothing is trusted.
    expect(clientAddress('192.0.2.1', xff('203.0.113.9'), proxies)).toBe('192.0.2.1');
    expect(clientAddress('127.0.0.1', xff('203.0.113.9'), [])).toBe('127.0.0.1');
    expect(clientAddress('127.0.0.1', new Headers(), proxies)).toBe('127.0.0.1');
  });

  describe('behind a proxy', () => {
    let r: RbacApp;
    let base: string;
    beforeAll(async () => {
      r = await startRbac({ options: { trustedProxies: ['127.0.0.1'], bruteForce: { maxFailures: 3, windowSeconds: 60, blockSeconds: 60 } } });
      base = r.t.url('hub');
    });
    afterAll(() => r.stop());

    it('blocks the guessing client, not everyone behind the same proxy', async () => {
      const from = (ip: string) => ({ 'x-forwarded-for': ip });
      for (let i = 0; i < 3; i++) {
        expect((await call(base, 'GET', '/hub/me', { key: 'tsk_wrong', headers: from('203.0.113.9') })).status).toBe(401);
      }
      expect((await call(base, 'GET', '/hub/me', { key: r.adminKey, headers: from('203.0.113.9') })).status).toBe(429);
      // Another user of the same proxy is not affected.
      expect((await call(base, 'GET', '/hub/me', { key: r.adminKey, headers: from('198.51.100.4') })).status).toBe(200);
    });
  });
});
