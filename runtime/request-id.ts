import { randomBytes } from 'node:crypto';

const hexByte = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** 24 characters: `xxxxxxxx-xxxx-8xxx-vxxx-`, 74 random bits with RFC 9562's version 8 and variant bits. */
function randomPrefix(): string {
  const b = randomBytes(10);
  const h = Array.from(b, (byte) => hexByte[byte]!).join('');
  const variant = (8 | (b[9]! & 3)).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(12, 15)}-${variant}${h.slice(15, 18)}-`;
}

let prefix = randomPrefix();
/** The counter's upper 40 bits, and the text of prefix and them; the lower 8 bits index `hexByte`. */
let high = -1;
let low = 256;
let base = '';

/**
 * A request id: a random prefix made once per process and a 48-bit counter, in the shape of a
 * UUID (version 8, RFC 9562's layout for ids of one's own design): `3f2a9c1e-7b40-8d15-a6e2-00000000002a`.
 *
 * Request ids correlate an answer with its log lines and audit entries. Nothing accepts one as a
 * credential, and nothing could: a client may choose its own (`X-Request-Id`). What they must be is
 * unique: the counter never repeats within a process, and the 74-bit random prefix, made afresh by
 * every process, makes a clash between processes (restarts, replicas) negligible. A client that sees
 * one of its ids can tell the ids answered around it and how many requests the process answered
 * between two of its own; it learns nothing else and gains nothing. In exchange an id costs one
 * string concatenation, where `randomUUID()` formats 16 bytes per request (go-chi's RequestID
 * middleware makes the same trade: a random per-process prefix and a counter).
 */
export function newRequestId(): string {
  if (low === 256) {
    low = 0;
    high++;
    if (high === 2 ** 40) {
      prefix = randomPrefix();
      high = 0;
    }
    base = prefix + high.toString(16).padStart(10, '0');
  }
  return base + hexByte[low++]!;
}
