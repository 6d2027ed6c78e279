import { isUtf8 } from 'node:buffer';
import { firstInvalidUtf8, InputError } from 'tessera/plugin';

export interface Line {
  /** 1-based, as editors and error messages count. */
  number: number;
  text: string;
  /** Set when the line is not valid UTF-8: the offset of its first bad byte within the line. */
  invalidUtf8?: number;
}

export class LineTooLongError extends InputError {
  declare readonly details: { line: number; limit: number } & Record<string, unknown>;
  constructor(line: number, limit: number, applied: Record<string, unknown> = {}) {
    super('line_too_long', `Line ${line} is longer than ${limit} bytes; the lines before it are applied.`, { details: { line, limit, ...applied } });
  }
}

/**
 * Splits a byte stream into lines without holding more than one line (plus one chunk) in memory.
 * Pulling the next chunk only when the consumer asks for the next line is what gives the client
 * backpressure: while a batch is being indexed, nothing is read from the socket.
 *
 * Lines are cut on bytes and each is decoded on its own: a line that is not valid UTF-8 comes out
 * with `invalidUtf8` (the offset of its first bad byte) and empty text, so it fails alone and the
 * lines around it are unaffected. Length is counted in bytes.
 */
export async function* lines(chunks: AsyncIterable<Uint8Array>, maxLineBytes: number): AsyncGenerator<Line> {
  let carry: Buffer = Buffer.alloc(0);
  let number = 0;
  for await (const chunk of chunks) {
    const bytes = carry.length === 0 ? Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength) : Buffer.concat([carry, chunk]);
    let start = 0;
    for (let nl = bytes.indexOf(10, start); nl !== -1; nl = bytes.indexOf(10, start)) {
      number++;
      if (nl - start > maxLineBytes) throw new LineTooLongError(number, maxLineBytes);
      yield decodeLine(number, bytes.subarray(start, nl));
      start = nl + 1;
    }
    // Copied, so the rest of a large chunk is not kept alive by a short tail.
    carry = Buffer.from(bytes.subarray(start));
    if (carry.length > maxLineBytes) throw new LineTooLongError(number + 1, maxLineBytes);
  }
  if (carry.length > 0) {
    const last = decodeLine(number + 1, carry);
    if (last.invalidUtf8 !== undefined || last.text.trim() !== '') yield last;
  }
}

function decodeLine(number: number, bytes: Buffer): Line {
  const end = bytes.length > 0 && bytes[bytes.length - 1] === 13 ? bytes.length - 1 : bytes.length;
  const line = bytes.subarray(0, end);
  if (isUtf8(line)) return { number, text: line.toString('utf8') };
  return { number, text: '', invalidUtf8: firstInvalidUtf8(line) };
}
