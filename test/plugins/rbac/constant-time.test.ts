import { createHash, timingSafeEqual } from 'node:crypto';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../../../runtime/store.js';
import { KeyVerifier } from '../../../plugins/rbac/key-verifier.js';
import { generateKey, KeyStore, type KeyRecord } from '../../../plugins/rbac/keys.js';
import { tempDir } from '../../helpers/app.js';

const sha256 = (text: string): Buffer => createHash('sha256').update(text).digest();

describe('key verification does the same constant-time work for every input', () => {
  const dir = tempDir();
  let store: Store;
  let keys: KeyStore;
  const secrets: Record<'active' | 'revoked' | 'expired', string> = { active: '', revoked: '', expired: '' };
  const calls: Array<{ a: Buffer; b: Buffer }> = [];
  let verifier: KeyVerifier;

  beforeAll(async () => {
    store = Store.open(dir);
    const ns = store.namespace('rbac');
    keys = new KeyStore({ keys: ns.db('keys'), byTenant: ns.db('keysByTenant'), usage: ns.db('keyUsage') });
    for (const state of ['active', 'revoked', 'expired'] as const) {
      const g = generateKey();
      const record: KeyRecord = {
        id: g.id,
        tenant: 't',
        userId: 'u',
        name: state,
        prefix: g.prefix,
        hash: g.hash,
        scopes: [],
        createdBy: 'u',
        createdAt: new Date().toISOString(),
        expiresAt: state === 'expired' ? new Date(Date.now() - 1000).toISOString() : null,
        revokedAt: state === 'revoked' ? new Date().toISOString() : null,
      };
      await keys.create(record);
      secrets[state] = g.secret;
    }
    verifier = new KeyVerifier(keys, (a, b) => {
      calls.push({ a: Buffer.from(a), b: Buffer.from(b) });
      return timingSafeEqual(a, b);
    });
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('uses crypto.timingSafeEqual unless told otherwise', () => {
    expect(new KeyVerifier(keys).compare).toBe(timingSafeEqual);
  });

  it('compares the SHA-256 of the presented key with one 32-byte digest, once, whether the key is valid, unknown, wrong, malformed, revoked or expired', () => {
    const active = secrets.active;
    const inputs: Array<[string, string, boolean]> = [
      ['valid', active, true],
      ['unknown id', `tsk_0zzzzzzzzAAAAAAA${active.slice(20)}`, false],
      ['wrong secret for a known id', `${active.slice(0, 20)}${'B'.repeat(43)}`, false],
      ['one character off', `${active.slice(0, -1)}${active.endsWith('x') ? 'y' : 'x'}`, false],
      ['malformed', 'not-a-key', false],
      ['very long', `tsk_${'a'.repeat(5000)}`, false],
      ['revoked', secrets.revoked, false],
      ['expired', secrets.expired, false],
    ];
    const storedHash = keys.get(active.slice(4, 20))!.hash;
    for (const [label, presented, ok] of inputs) {
      calls.length = 0;
      const result = verifier.verify(presented, Date.now());
      expect({ label, ok: result.ok }).toEqual({ label, ok });
      expect({ label, comparisons: calls.length }).toEqual({ label, comparisons: 1 });
      expect({ label, a: calls[0]!.a.length, b: calls[0]!.b.length }).toEqual({ label, a: 32, b: 32 });
      expect(calls[0]!.a.equals(sha256(presented))).toBe(true);
      // A known id is compared against its stored hash; anything else against a random digest.
      const knownId = label === 'valid' || label === 'wrong secret for a known id' || label === 'one character off';
      expect({ label, againstStored: calls[0]!.b.toString('hex') === storedHash }).toEqual({ label, againstStored: knownId });
    }
  });

  it('reports a failure, never ok, for a wrong secret and for a bare prefix', () => {
    const wrong = verifier.verify(`${secrets.active.slice(0, 20)}${'C'.repeat(43)}`, Date.now());
    expect(wrong.ok).toBe(false);
    expect(verifier.verify('tsk_', Date.now())).toEqual({ ok: false });
  });
});
