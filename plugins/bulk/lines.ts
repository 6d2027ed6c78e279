import { isUtf8 } from 'node:buffer';
import { firstInvalidUtf8, InputError } from 'tessera-runtime/plugin';

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
  // The unfinished line's pieces, joined once when its newline arrives: joining on every chunk
  // copied a long line over and over (a 16 MB line took 5 s and 300 MB to refuse).
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let number = 0;
  for await (const chunk of chunks) {
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let start = 0;
    for (let nl = bytes.indexOf(10); nl !== -1; nl = bytes.indexOf(10, start)) {
      number++;
      const length = pendingBytes + nl - start;
      if (length > maxLineBytes) throw new LineTooLongError(number, maxLineBytes);
      const line = pendingBytes === 0 ? bytes.subarray(start, nl) : Buffer.concat([...pending, bytes.subarray(start, nl)], length);
      pending = [];
      pendingBytes = 0;
      yield decodeLine(number, line);
      start = nl + 1;
    }
    if (start < bytes.length) {
      // A copy: the stream may reuse the chunk's memory once the next one is asked for.
      pending.push(Buffer.from(bytes.subarray(start)));
      pendingBytes += bytes.length - start;
      if (pendingBytes > maxLineBytes) throw new LineTooLongError(number + 1, maxLineBytes);
    }
  }
  if (pendingBytes > 0) {
    const last = decodeLine(number + 1, Buffer.concat(pending, pendingBytes));
    if (last.invalidUtf8 !== undefined || last.text.trim() !== '') yield last;
  }
}

function decodeLine(number: number, bytes: Buffer): Line {
  const end = bytes.length > 0 && bytes[bytes.length - 1] === 13 ? bytes.length - 1 : bytes.length;
  const line = bytes.subarray(0, end);
  if (isUtf8(line)) return { number, text: line.toString('utf8') };
  return { number, text: '', invalidUtf8: firstInvalidUtf8(line) };
}
