import { describe, expect, it } from 'vitest';
import { decodeUtf8, firstInvalidUtf8 } from '../../runtime/body.js';

describe('UTF-8 checking', () => {
  it('finds the first byte that starts no valid sequence, as a strict decoder does', () => {
    const cases: Array<[number[], number]> = [
      [[0x63, 0x61, 0x66, 0xe9], 3], // "caf" + Latin-1 é
      [[0x41, 0xc3, 0xa9, 0x42], 4], // valid "AéB"
      [[0xc0, 0x80], 0], // overlong NUL
      [[0x41, 0xed, 0xa0, 0x80], 1], // a surrogate, U+D800
      [[0xf4, 0x90, 0x80, 0x80], 0], // above U+10FFFF
      [[0xe2, 0x82], 0], // truncated
      [[0xf0, 0x9f, 0x98, 0x80, 0x80], 4], // emoji then a stray continuation byte
    ];
    for (const [bytes, offset] of cases) {
      expect(firstInvalidUtf8(Uint8Array.from(bytes))).toBe(offset);
      // Cross-check against the platform's strict decoder.
      const valid = (() => {
        try {
          new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(bytes));
          return true;
        } catch {
          return false;
        }
      })();
      expect(valid).toBe(offset === bytes.length);
    }
    expect(() => decodeUtf8(Buffer.from([0x7b, 0xff, 0x7d]))).toThrowError(
      expect.objectContaining({ code: 'invalid_utf8', status: 400, details: { offset: 1 } }),
    );
  });
});
