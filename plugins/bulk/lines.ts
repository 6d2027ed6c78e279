import { InputError } from '../../runtime/errors.js';

export interface Line {
  /** 1-based, as editors and error messages count. */
  number: number;
  text: string;
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
 */
export async function* lines(chunks: AsyncIterable<Uint8Array>, maxLineBytes: number): AsyncGenerator<Line> {
  const decoder = new TextDecoder();
  let carry = '';
  let number = 0;
  for await (const chunk of chunks) {
    const text = carry + decoder.decode(chunk, { stream: true });
    let start = 0;
    for (let nl = text.indexOf('\n', start); nl !== -1; nl = text.indexOf('\n', start)) {
      number++;
      const line = text.slice(start, nl);
      start = nl + 1;
      if (line.length > maxLineBytes / 4 && Buffer.byteLength(line) > maxLineBytes) throw new LineTooLongError(number, maxLineBytes);
      yield { number, text: line.endsWith('\r') ? line.slice(0, -1) : line };
    }
    carry = text.slice(start);
    if (carry.length > maxLineBytes / 4 && Buffer.byteLength(carry) > maxLineBytes) throw new LineTooLongError(number + 1, maxLineBytes);
  }
  carry += decoder.decode();
  if (carry.trim() !== '') yield { number: number + 1, text: carry.endsWith('\r') ? carry.slice(0, -1) : carry };
}
