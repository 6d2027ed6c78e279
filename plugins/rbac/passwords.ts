/**
 * Passwords for signing a browser in with a user name (`POST /hub/session`), kept apart from the
 * user records so no listing or export of users can carry a hash. scrypt (RFC 7914) with a random
 * salt per password; the parameters are stored with each hash, so raising them later re-hashes
 * nothing and still verifies old ones.
 */
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import type { Database } from 'lmdb';

export const minPasswordLength = 12;
export const maxPasswordLength = 1024;

/** N = 2^15, r = 8, p = 1: ~50-100 ms and 32 MiB per check here, OWASP's scrypt minimum or above. */
const cost = { log2N: 15, r: 8, p: 1 };
const keyLength = 32;

function derive(password: string, salt: Buffer, log2N: number, r: number, p: number): Promise<Buffer> {
  const options: ScryptOptions = { N: 2 ** log2N, r, p, maxmem: 256 * 2 ** log2N * r };
  return new Promise((resolve, reject) => {
    scryptCallback(password.normalize('NFC'), salt, keyLength, options, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

/** `scrypt$<log2 N>$<r>$<p>$<salt>$<hash>`, base64url. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, cost.log2N, cost.r, cost.p);
  return ['scrypt', cost.log2N, cost.r, cost.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

export async function passwordMatches(password: string, stored: string): Promise<boolean> {
  const [scheme, log2N, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await derive(password, Buffer.from(salt, 'base64url'), Number(log2N), Number(r), Number(p));
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** Password hashes keyed [tenant, userId]. */
export class PasswordStore {
  /** Checked when the user or its password does not exist, so a wrong name costs what a wrong password costs. */
  private decoy: Promise<string> | undefined;

  constructor(private readonly db: Database<string, [string, string]>) {}

  has(tenant: string, userId: string): boolean {
    return this.db.get([tenant, userId]) !== undefined;
  }

  async set(tenant: string, userId: string, password: string): Promise<void> {
    await this.db.put([tenant, userId], await hashPassword(password));
  }

  async remove(tenant: string, userId: string): Promise<boolean> {
    return this.db.remove([tenant, userId]);
  }

  /** Whether `password` is the user's; false for a user without one, after the same work. */
  async verify(tenant: string, userId: string | undefined, password: string): Promise<boolean> {
    const stored = userId === undefined ? undefined : this.db.get([tenant, userId]);
    if (stored === undefined) {
      this.decoy ??= hashPassword(randomBytes(18).toString('base64url'));
      await passwordMatches(password, await this.decoy);
      return false;
    }
    return passwordMatches(password, stored);
  }
}
