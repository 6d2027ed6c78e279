import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { looksBinary } from './text-extract.js';

export interface FileRead {
  /** SHA-256 of every byte, hex. */
  hash: string;
  size: number;
  /** The first `keepBytes` bytes, when asked for (text to index). */
  head?: Uint8Array;
  truncated: boolean;
  binary: boolean;
}

/** Streams a file once: hashes all of it and keeps the start for text extraction (bounded memory). */
export async function readFingerprint(file: string, keepBytes: number): Promise<FileRead> {
  const hash = createHash('sha256');
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let size = 0;
  let sniff: Buffer | undefined;
  for await (const chunk of createReadStream(file, { highWaterMark: 256 * 1024 }) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    size += chunk.length;
    sniff ??= chunk.subarray(0, 8192);
    if (keptBytes < keepBytes) {
      const part = chunk.subarray(0, keepBytes - keptBytes);
      kept.push(part);
      keptBytes += part.length;
    }
  }
  const binary = sniff !== undefined && looksBinary(sniff);
  return {
    hash: hash.digest('hex'),
    size,
    truncated: size > keptBytes,
    binary,
    ...(keepBytes > 0 ? { head: Buffer.concat(kept) } : {}),
  };
}
