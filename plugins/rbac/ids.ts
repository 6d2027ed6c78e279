import { randomBytes } from 'node:crypto';

const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Base62 of `bytes` as a fixed number of characters (leading zeros kept), so keys have one length. */
export function base62(bytes: Uint8Array): string {
  const length = Math.ceil((bytes.length * 8) / Math.log2(62));
  let n = BigInt(`0x${Buffer.from(bytes).toString('hex') || '0'}`);
  let out = '';
  for (let i = 0; i < length; i++) {
    out = alphabet[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out;
}

/** Length of an id from `newId`: 9 characters of time, 7 of randomness. */
export const ID_LENGTH = 16;

/**
 * A short id that sorts by creation time (milliseconds in base 36, then 5 random bytes in base 62),
 * so lists keyed by it come out oldest first without a second index.
 */
export function newId(now = Date.now()): string {
  return now.toString(36).padStart(9, '0') + base62(randomBytes(5));
}

export const idPattern = /^[0-9a-z]{9}[0-9A-Za-z]{7}$/;
