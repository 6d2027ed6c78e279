import { describe, expect, it } from 'vitest';
import { segmentWords } from '../../../plugins/search/analysis/word-segmenter.js';
import { pick, prng } from './support/prng.js';

const segmenter = new Intl.Segmenter('en', { granularity: 'word' });

/** The reference: every word-like segment straight from Intl.Segmenter. */
function viaIntl(text: string): Array<[number, number]> {
  return [...segmenter.segment(text)].filter((s) => s.isWordLike).map((s) => [s.index, s.index + s.segment.length]);
}

function viaSegmentWords(text: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  segmentWords(text, (start, end) => out.push([start, end]));
  return out;
}

/** Every string over `alphabet` of length 1..maxLength. */
function* allStrings(alphabet: readonly string[], maxLength: number): Generator<string> {
  let level = [''];
  for (let len = 1; len <= maxLength; len++) {
    const next: string[] = [];
    for (const prefix of level) for (const ch of alphabet) next.push(prefix + ch);
    yield* next;
    level = next;
  }
}

describe('segmentWords', () => {
  it('agrees with Intl.Segmenter on every ASCII string of up to 5 characters from the classes that matter', () => {
    const alphabet = ['a', 'Z', '7', '_', '.', "'", ':', ',', ';', ' ', '-'];
    const mismatches: string[] = [];
    for (const s of allStrings(alphabet, 5)) {
      if (JSON.stringify(viaSegmentWords(s)) !== JSON.stringify(viaIntl(s))) mismatches.push(s);
      if (mismatches.length > 10) break;
    }
    expect(mismatches).toEqual([]);
  });

  it('agrees with Intl.Segmenter on every printable ASCII character between letters and digits', () => {
    const mismatches: string[] = [];
    for (let c = 32; c < 127; c++) {
      const ch = String.fromCharCode(c);
      for (const s of [`a${ch}b`, `1${ch}2`, `a${ch}1`, `${ch}`, `${ch}${ch}`, `x ${ch}y${ch} z`]) {
        if (JSON.stringify(viaSegmentWords(s)) !== JSON.stringify(viaIntl(s))) mismatches.push(s);
      }
    }
    expect(mismatches).toEqual([]);
  });

  it('agrees with Intl.Segmenter on random text mixing ASCII with accents, combining marks, CJK, emoji and format characters', () => {
    const rand = prng(42);
    const pieces = [
      'a',
      'b',
      'Q',
      '1',
      '9',
      '_',
      '.',
      "'",
      ':',
      ',',
      ';',
      ' ',
      ' ',
      ' ',
      '\n',
      '\t',
      '-',
      '"',
      '(',
      ')',
      'é',
      'Ü',
      '\u0301',
      '\u00ad',
      '\u200d',
      '\u00a0',
      '\u2019',
      '\u00b7',
      '東',
      '京',
      'の',
      'ひ',
      'カ',
      '한',
      '국',
      '😀',
      '👍🏽',
      '🇫🇷',
      'ß',
      'İ',
      'ﬁ',
      'Ａ',
      '٣',
      'א',
      '״',
      'ก',
      'ไ',
      'ा',
      'क',
    ];
    const mismatches: string[] = [];
    for (let round = 0; round < 4000; round++) {
      const length = 1 + Math.floor(rand() * 24);
      let s = '';
      for (let i = 0; i < length; i++) s += pick(rand, pieces);
      if (JSON.stringify(viaSegmentWords(s)) !== JSON.stringify(viaIntl(s))) mismatches.push(s);
    }
    expect(mismatches.slice(0, 10)).toEqual([]);
  });

  it('reports whether each word is pure ASCII', () => {
    const seen: Array<[string, boolean]> = [];
    const text = 'café au lait 東京';
    segmentWords(text, (start, end, ascii) => seen.push([text.slice(start, end), ascii]));
    expect(seen).toEqual([
      ['café', false],
      ['au', true],
      ['lait', true],
      ['東京', false],
    ]);
  });

  it('finds no words in empty or punctuation-only text', () => {
    expect(viaSegmentWords('')).toEqual([]);
    expect(viaSegmentWords(' -- !? ... ')).toEqual([]);
  });
});
