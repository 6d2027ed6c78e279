import { describe, expect, it } from 'vitest';
import { InputError } from '../../../runtime/errors.js';
import { analysisErrorCodes } from '../../../plugins/search/analysis/analysis-error-codes.js';
import {
  analyzerNames,
  englishAnalyzer,
  getAnalyzer,
  keywordAnalyzer,
  standardAnalyzer,
  UnknownAnalyzerError,
} from '../../../plugins/search/analysis/analyzer.js';

describe('standard analyzer', () => {
  it('tokenizes, lower-cases and folds, keeping every word (no stop words)', () => {
    expect(standardAnalyzer.analyze('The Café and the Bar')).toEqual([
      { term: 'the', position: 0, start: 0, end: 3 },
      { term: 'cafe', position: 1, start: 4, end: 8 },
      { term: 'and', position: 2, start: 9, end: 12 },
      { term: 'the', position: 3, start: 13, end: 16 },
      { term: 'bar', position: 4, start: 17, end: 20 },
    ]);
  });
});

describe('english analyzer', () => {
  it('drops stop words leaving position gaps, and stems the rest with Porter2', () => {
    expect(englishAnalyzer.analyze('The flow of the heated air')).toEqual([
      { term: 'flow', position: 1, start: 4, end: 8 },
      { term: 'heat', position: 4, start: 16, end: 22 },
      { term: 'air', position: 5, start: 23, end: 26 },
    ]);
  });

  it('strips possessives before the stop-word check, so "it\'s" goes and "wing\'s" becomes "wing"', () => {
    expect(englishAnalyzer.analyze("it's the wing's generalizations").map((t) => [t.term, t.position])).toEqual([
      ['wing', 2],
      ['general', 3],
    ]);
  });

  it('folds accents before stemming and leaves numbers and non-Latin words unstemmed', () => {
    expect(englishAnalyzer.analyze('Naïve flows 3.14 x15 東京').map((t) => t.term)).toEqual(['naiv', 'flow', '3.14', 'x15', '東京']);
  });

  it('treats upper-case stop words as stop words', () => {
    expect(englishAnalyzer.analyze('THE AND OF')).toEqual([]);
  });
});

describe('keyword analyzer', () => {
  it('keeps the whole value as one exact term, without folding case or accents', () => {
    expect(keywordAnalyzer.analyze('New York Café')).toEqual([{ term: 'New York Café', position: 0, start: 0, end: 13 }]);
  });

  it('gives no term for an empty value', () => {
    expect(keywordAnalyzer.analyze('')).toEqual([]);
  });
});

describe('getAnalyzer', () => {
  it('returns each built-in analyzer by name', () => {
    expect(analyzerNames).toEqual(['standard', 'english', 'keyword']);
    expect(analyzerNames.map((name) => getAnalyzer(name).name)).toEqual(analyzerNames);
    expect(getAnalyzer('english')).toBe(englishAnalyzer);
  });

  it('throws a 400 unknown_analyzer InputError naming the analyzers for an unknown name', () => {
    let error: unknown;
    try {
      getAnalyzer('french');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UnknownAnalyzerError);
    expect(error).toBeInstanceOf(InputError);
    expect((error as UnknownAnalyzerError).status).toBe(400);
    expect((error as UnknownAnalyzerError).toJSON()).toEqual({
      code: 'unknown_analyzer',
      message: 'Unknown analyzer "french"; expected one of: standard, english, keyword',
      details: { analyzer: 'french', expected: ['standard', 'english', 'keyword'] },
    });
  });

  it('does not mistake Object.prototype names for analyzers', () => {
    expect(() => getAnalyzer('toString')).toThrow(UnknownAnalyzerError);
    expect(() => getAnalyzer('__proto__')).toThrow(UnknownAnalyzerError);
  });
});

describe('analysisErrorCodes', () => {
  it('documents every error code analysis and query parsing raise, with its status', () => {
    expect(analysisErrorCodes.map((c) => [c.code, c.status])).toEqual([
      ['unknown_analyzer', 400],
      ['invalid_minimum_should_match', 400],
    ]);
  });
});
