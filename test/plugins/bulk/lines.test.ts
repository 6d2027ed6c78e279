import { describe, expect, it } from 'vitest';
import { lines, LineTooLongError, type Line } from '../../../plugins/bulk/lines.js';

async function* chunked(text: string | Buffer, size: number): AsyncGenerator<Uint8Array> {
  const bytes = typeof text === 'string' ? Buffer.from(text) : text;
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function collect(source: AsyncIterable<Uint8Array>, max = 1 << 20): Promise<Line[]> {
  const out: Line[] = [];
  for await (const line of lines(source, max)) out.push(line);
  return out;
}

describe('bulk line splitting', () => {
  it('gives the same lines whatever the chunk size, CRLF and a last line without newline included', async () => {
    const text = '{"id":"a"}\r\n{"id":"é€😀"}\n\n{"id":"c"}';
    for (const size of [1, 2, 3, 7, 64, 1000]) {
      expect((await collect(chunked(text, size))).map((l) => [l.number, l.text])).toEqual([
        [1, '{"id":"a"}'],
        [2, '{"id":"é€😀"}'],
        [3, ''],
        [4, '{"id":"c"}'],
      ]);
    }
  });

  it('marks a line of bad UTF-8 split over chunks, and only that line', async () => {
    const bytes = Buffer.concat([Buffer.from('ok\nbad '), Buffer.from([0xc3, 0x28]), Buffer.from(' here\nfine\n')]);
    const got = await collect(chunked(bytes, 3));
    expect(got.map((l) => [l.number, l.text, l.invalidUtf8])).toEqual([
      [1, 'ok', undefined],
      [2, '', 4],
      [3, 'fine', undefined],
    ]);
  });

  it('refuses a line past the limit as soon as it passes it, counting bytes', async () => {
    await expect(collect(chunked('short\n' + 'x'.repeat(11) + '\nnever\n', 4), 10)).rejects.toMatchObject({
      code: 'line_too_long',
      details: { line: 2, limit: 10 },
    });
    // Ten bytes of two-byte characters is five characters: the limit is on bytes.
    await expect(collect(chunked('é'.repeat(6) + '\n', 4), 10)).rejects.toBeInstanceOf(LineTooLongError);
    expect((await collect(chunked('é'.repeat(5) + '\n', 4), 10))[0]!.text).toBe('é'.repeat(5));
  });

  it('reassembles a line of 256 chunks of 64 KiB', async () => {
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    async function* long(): AsyncGenerator<Uint8Array> {
      for (let i = 0; i < 256; i++) yield chunk;
      yield Buffer.from('\n');
    }
    const got = await collect(long(), 32 << 20);
    expect(got).toHaveLength(1);
    expect(got[0]!.text.length).toBe(16 << 20);
  });
});
