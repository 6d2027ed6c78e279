import { describe, expect, it } from 'vitest';
import { tokenize } from '../../../plugins/search/analysis/tokenizer.js';

const brief = (text: string) => tokenize(text).map((t) => [t.term, t.position, t.start, t.end]);

describe('tokenize', () => {
  it('splits on Unicode word boundaries and keeps positions and offsets into the original text', () => {
    expect(tokenize('The  Lift-drag ratio, at 3.5 deg.')).toEqual([
      { term: 'the', position: 0, start: 0, end: 3 },
      { term: 'lift', position: 1, start: 5, end: 9 },
      { term: 'drag', position: 2, start: 10, end: 14 },
      { term: 'ratio', position: 3, start: 15, end: 20 },
      { term: 'at', position: 4, start: 22, end: 24 },
      { term: '3.5', position: 5, start: 25, end: 28 },
      { term: 'deg', position: 6, start: 29, end: 32 },
    ]);
  });

  it('keeps contractions, decimals and snake_case words whole, as UAX #29 does', () => {
    expect(tokenize("don't 1,000.5 e.g. foo_bar x-15").map((t) => t.term)).toEqual(["don't", '1,000.5', 'e.g', 'foo_bar', 'x', '15']);
  });

  it('folds diacritics and lower-cases, with offsets still pointing at the accented original', () => {
    expect(brief('Café CRÈME brûlée')).toEqual([
      ['cafe', 0, 0, 4],
      ['creme', 1, 5, 10],
      ['brulee', 2, 11, 17],
    ]);
    expect(brief('e\u0301te\u0301')).toEqual([['ete', 0, 0, 5]]);
  });

  it('folds compatibility forms and letters with built-in strokes (ligatures, full-width, ß, Ł, Ø, Þ, İ)', () => {
    expect(tokenize('Ångström Straße ﬁnance ＡＢＣ İstanbul Łódź Øresund Þór').map((t) => t.term)).toEqual([
      'angstrom',
      'strasse',
      'finance',
      'abc',
      'istanbul',
      'lodz',
      'oresund',
      'thor',
    ]);
  });

  it('folds the typographic apostrophe to the ASCII one', () => {
    expect(tokenize('Don’t').map((t) => t.term)).toEqual(["don't"]);
  });

  it('leaves marks that are part of a script alone: Hangul stays composed, Devanagari and kana keep their signs', () => {
    expect(tokenize('한국어 हिन्दी がぎ').map((t) => t.term)).toEqual(['한국어', 'हिन्दी', 'が', 'ぎ']);
  });

  it('segments CJK text without spaces into dictionary words and skips emoji without crashing', () => {
    expect(brief('東京の天気 😀 🇫🇷 👍🏽 ok')).toEqual([
      ['東京', 0, 0, 2],
      ['の', 1, 2, 3],
      ['天気', 2, 3, 5],
      ['ok', 3, 19, 21],
    ]);
  });

  it('can keep case and accents when asked', () => {
    expect(tokenize('Café CRÈME', { fold: false }).map((t) => t.term)).toEqual(['café', 'crème']);
    expect(tokenize('Café CRÈME', { fold: false, lowercase: false }).map((t) => t.term)).toEqual(['Café', 'CRÈME']);
  });

  it('returns no tokens for empty, blank or punctuation-only text', () => {
    expect(tokenize('')).toEqual([]);
    expect(tokenize('  \n\t ')).toEqual([]);
    expect(tokenize('-- ?! ...')).toEqual([]);
  });
});
