import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import type { H3Event } from 'h3';
import { InputError, TesseraError } from './errors.js';

export class BodyTooLargeError extends TesseraError {
  constructor(limit: number) {
    super('body_too_large', 413, `Request body exceeds the limit of ${limit} bytes.`, {
      details: { limit },
      // The rest of the body is never read, so the connection cannot be reused.
      headers: { connection: 'close' },
    });
    this.name = 'BodyTooLargeError';
  }
}

export class UnsupportedMediaTypeError extends TesseraError {
  constructor(received: string, accepted: readonly string[]) {
    super('unsupported_media_type', 415, `Content-Type "${received || '(none)'}" is not accepted here; send ${accepted.join(' or ')}.`, {
      details: { received: received || null, accepted },
    });
    this.name = 'UnsupportedMediaTypeError';
  }
}

export class InvalidJsonError extends InputError {
  constructor(reason: string, details?: Record<string, unknown>) {
    super('invalid_json', `Request body is not valid JSON: ${reason}`, { details });
    this.name = 'InvalidJsonError';
  }
}

/** The media type without parameters, lower-cased: `application/json; charset=utf-8` -> `application/json`. */
export function mediaType(headers: Headers): string {
  const value = headers.get('content-type');
  if (!value) return '';
  const semi = value.indexOf(';');
  return (semi === -1 ? value : value.slice(0, semi)).trim().toLowerCase();
}

export function isJsonMediaType(type: string): boolean {
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

function nodeRequest(event: H3Event): IncomingMessage | undefined {
  return (event.req as { runtime?: { node?: { req?: IncomingMessage } } }).runtime?.node?.req;
}

/**
 * The body as chunks, counted as they arrive: the limit is enforced from Content-Length up front
 * and from the running total while streaming, so an oversized body is refused before it is whole.
 * Iterating the Node request pauses the socket between chunks, which is the backpressure.
 */
export async function* limitedBody(event: H3Event, limit: number): AsyncGenerator<Uint8Array> {
  const declared = event.req.headers.get('content-length');
  if (declared !== null && Number(declared) > limit) throw new BodyTooLargeError(limit);
  let total = 0;
  const node = nodeRequest(event);
  const source: AsyncIterable<Uint8Array> | null = node ?? (event.req.body as AsyncIterable<Uint8Array> | null);
  if (!source) return;
  for await (const chunk of source) {
    total += chunk.byteLength;
    if (total > limit) throw new BodyTooLargeError(limit);
    yield chunk;
  }
}

/**
 * The whole body as text. Collected from 'data' events rather than an async iterator: for the
 * small JSON bodies most routes take, the iterator's promise per chunk is most of the cost.
 */
export function readBodyText(event: H3Event, limit: number): Promise<string> {
  const declared = event.req.headers.get('content-length');
  if (declared !== null && Number(declared) > limit) return Promise.reject(new BodyTooLargeError(limit));
  const node = nodeRequest(event);
  if (!node) return event.req.arrayBuffer().then((bytes) => decodeUtf8(Buffer.from(bytes)));
  if (node.readableEnded) return Promise.resolve('');
  return new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const onData = (chunk: Buffer): void => {
      total += chunk.byteLength;
      if (total > limit) {
        cleanup();
        node.pause();
        reject(new BodyTooLargeError(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      try {
        resolve(decodeUtf8(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
      } catch (err) {
        reject(err);
      }
    };
    const onError = (err: Error): void => {
      cleanup();
      reject(err);
    };
    const cleanup = (): void => {
      node.off('data', onData);
      node.off('end', onEnd);
      node.off('error', onError);
    };
    node.on('data', onData);
    node.on('end', onEnd);
    node.on('error', onError);
  });
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new InvalidJsonError((err as Error).message);
  }
}

export class InvalidUtf8Error extends InputError {
  constructor(offset: number, what = 'The request body') {
    super('invalid_utf8', `${what} is not valid UTF-8: the byte at offset ${offset} starts no valid sequence. Nothing was stored.`, { details: { offset } });
  }
}

/** `bytes` as text, or InvalidUtf8Error naming the first bad byte: never a silent U+FFFD. */
export function decodeUtf8(bytes: Buffer, what?: string): string {
  if (isUtf8(bytes)) return bytes.toString('utf8');
  throw new InvalidUtf8Error(firstInvalidUtf8(bytes), what);
}

/** Offset of the first byte that does not begin a well-formed UTF-8 sequence (RFC 3629). */
export function firstInvalidUtf8(b: Uint8Array): number {
  let i = 0;
  while (i < b.length) {
    const c = b[i]!;
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (c < 0x80) {
      i++;
      continue;
    } else if (c >= 0xc2 && c <= 0xdf) need = 1;
    else if (c >= 0xe0 && c <= 0xef) {
      need = 2;
      if (c === 0xe0) lo = 0xa0;
      if (c === 0xed) hi = 0x9f; // no surrogates
    } else if (c >= 0xf0 && c <= 0xf4) {
      need = 3;
      if (c === 0xf0) lo = 0x90;
      if (c === 0xf4) hi = 0x8f;
    } else return i;
    const second = b[i + 1];
    if (second === undefined || second < lo || second > hi) return i;
    for (let k = 2; k <= need; k++) {
      const next = b[i + k];
      if (next === undefined || next < 0x80 || next > 0xbf) return i;
    }
    i += need + 1;
  }
  return b.length;
}
