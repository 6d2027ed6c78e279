import { randomBytes, timingSafeEqual } from 'node:crypto';
import { hashKey, keyState, parseKeyId, type KeyRecord, type KeyStore } from './keys.js';

/** Compares two digests of equal length; `crypto.timingSafeEqual` unless a test records calls. */
export type DigestCompare = (a: Uint8Array, b: Uint8Array) => boolean;

export type Verification = { ok: true; record: KeyRecord } | { ok: false; record?: KeyRecord };

/** An id no key has (time 0): malformed keys are looked up under it, so they cost the same. */
const ABSENT_ID = '0000000000000000';

/**
 * Checks a presented key. Every input takes the same steps: one lookup by id, one SHA-256 of the
 * presented string, one constant-time comparison of two 32-byte digests (against a random digest
 * when the id is unknown); only then are revocation and expiry looked at. So an unknown key and a
 * wrong secret for a known id cost the same, and the comparison leaks nothing about the stored hash.
 */
export class KeyVerifier {
  private readonly keys: KeyStore;
  readonly compare: DigestCompare;
  private readonly absentHash = hashKey(randomBytes(32).toString('hex')).toString('hex');

  constructor(keys: KeyStore, compare: DigestCompare = timingSafeEqual) {
    this.keys = keys;
    this.compare = compare;
  }

  /** `record` on failure is only for attributing the attempt (audit); never trust it. */
  verify(presented: string, now: number): Verification {
    const record = this.keys.lookup(parseKeyId(presented) ?? ABSENT_ID);
    const expected = Buffer.from(record === undefined ? this.absentHash : record.hash, 'hex');
    const digest = hashKey(presented);
    const match = this.compare(digest, expected);
    if (!match || record === undefined) return record === undefined ? { ok: false } : { ok: false, record };
    if (keyState(record, now) !== 'active') return { ok: false, record };
    return { ok: true, record };
  }
}
