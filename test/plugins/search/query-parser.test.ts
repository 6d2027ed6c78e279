import { describe, expect, it } from 'vitest';
import { englishAnalyzer, keywordAnalyzer, standardAnalyzer } from '../../../plugins/search/analysis/analyzer.js';
import { InvalidMinimumShouldMatchError } from '../../../plugins/search/query/minimum-should-match.js';
import { positiveLeaves } from '../../../plugins/search/query/query-ast.js';
import { parseQuery, type ParseQueryOptions } from '../../../plugins/search/query/query-parser.js';
import { all, bool, none, phrase, term, terms } from './support/query-builders.js';

const std = (q: string, options: Partial<ParseQueryOptions> = {}) => parseQuery(q, { analyzer: standardAnalyzer, ...options });
const eng = (q: string, options: Partial<ParseQueryOptions> = {}) => parseQuery(q, { analyzer: englishAnalyzer, ...options });

describe('parseQuery: juxtaposition and the default operator', () => {
  it('makes juxtaposed words optional clauses under the default OR', () => {
    expect(std('wing lift drag')).toEqual(bool({ should: terms('wing', 'lift', 'drag') }));
  });

  it('makes them required under defaultOperator AND', () => {
    expect(std('wing lift drag', { defaultOperator: 'AND' })).toEqual(bool({ must: terms('wing', 'lift', 'drag') }));
  });

  it('returns a lone term unwrapped', () => {
    expect(std('Wing')).toEqual(term('wing'));
  });
});

describe('parseQuery: upper-case operators', () => {
  it('AND requires both sides', () => {
    expect(std('wing AND lift')).toEqual(bool({ must: terms('wing', 'lift') }));
  });

  it('OR accepts either side, even under defaultOperator AND', () => {
    expect(std('wing OR lift', { defaultOperator: 'AND' })).toEqual(bool({ should: terms('wing', 'lift') }));
  });

  it('NOT excludes the next clause', () => {
    expect(std('wing NOT lift')).toEqual(bool({ should: [term('wing')], mustNot: [term('lift')] }));
  });

  it('AND binds tighter than OR, and both tighter than juxtaposition', () => {
    expect(std('x AND y OR z')).toEqual(bool({ should: [bool({ must: terms('x', 'y') }), term('z')] }));
    expect(std('w x AND y v')).toEqual(bool({ should: [term('w'), bool({ must: terms('x', 'y') }), term('v')] }));
    expect(std('cheap flights paris OR london', { defaultOperator: 'AND' })).toEqual(
      bool({ must: [term('cheap'), term('flights'), bool({ should: terms('paris', 'london') })] }),
    );
  });

  it('reads OR NOT as a disjunction with everything but the clause, not as Lucene\'s "x -y"', () => {
    expect(std('x OR NOT y')).toEqual(bool({ should: [term('x'), bool({ must: [all], mustNot: [term('y')] })] }));
  });

  it('AND NOT excludes', () => {
    expect(std('x AND NOT y')).toEqual(bool({ must: [term('x')], mustNot: [term('y')] }));
  });

  it('treats lower-case and mixed-case AND/OR/NOT as natural-language forms, not strict operators', () => {
    expect(std('what is the lift And drag')).toEqual(bool({ should: terms('what', 'is', 'the', 'lift', 'and', 'drag') }));
  });

  it("reads an all-capitals query's AND/OR/NOT under the natural-language rule", () => {
    expect(eng('CATS AND DOGS')).toEqual(bool({ must: terms('cat', 'dog') }));
    // A sentence: the english analyzer's prose stop words ("what") go too.
    expect(eng('WHAT IS THE LIFT AND DRAG OF A WING')).toEqual(bool({ should: terms('lift', 'drag', 'wing') }));
  });
});

describe('parseQuery: natural-language conjunctions', () => {
  it('and / or / not act as operators in a keyword query', () => {
    expect(eng('cats and dogs')).toEqual(bool({ must: terms('cat', 'dog') }));
    expect(eng('cats or dogs', { defaultOperator: 'AND' })).toEqual(bool({ should: terms('cat', 'dog') }));
    expect(eng('jaguar not car')).toEqual(bool({ should: [term('jaguar')], mustNot: [term('car')] }));
  });

  it('but not and without exclude the next clause', () => {
    expect(eng('chicken recipes but not curry')).toEqual(bool({ should: terms('chicken', 'recip'), mustNot: [term('curri')] }));
    expect(eng('jaguar without cars')).toEqual(bool({ should: [term('jaguar')], mustNot: [term('car')] }));
    expect(eng('pets but not (cats or dogs)')).toEqual(bool({ should: [term('pet')], mustNot: [bool({ should: terms('cat', 'dog') })] }));
  });

  it('a whole sentence keeps its not, and, or as words, so nothing is excluded or required', () => {
    expect(eng('vitamin D is not linked to fewer fractures in older adults')).toEqual(
      bool({ should: terms('vitamin', 'd', 'link', 'fewer', 'fractur', 'older', 'adult') }),
    );
    expect(std('what are the structural and aeroelastic problems')).toEqual(
      bool({ should: terms('what', 'are', 'the', 'structural', 'and', 'aeroelastic', 'problems') }),
    );
  });

  it("a sentence drops the english analyzer's function words; a keyword query and the standard analyzer keep them", () => {
    expect(eng('what are the structural and aeroelastic problems')).toEqual(bool({ should: terms('structur', 'aeroelast', 'problem') }));
    // One function word is not a sentence: "who" stays.
    expect(eng('who framed roger rabbit')).toEqual(bool({ should: terms('who', 'frame', 'roger', 'rabbit') }));
    // Nothing but function words: the query is left whole ("the" is still an english stop word).
    expect(eng('the who')).toEqual(term('who'));
    // Explicit syntax stays: a required or field-qualified function word is kept.
    expect(eng('what are +how wings')).toEqual(bool({ must: [term('how')], should: [term('wing')] }));
    expect(std('what are the structural problems')).toEqual(bool({ should: terms('what', 'are', 'the', 'structural', 'problems') }));
  });

  it('a standalone NOT or without excludes from everything', () => {
    expect(std('without sugar')).toEqual(bool({ must: [all], mustNot: [term('sugar')] }));
  });
});

describe('parseQuery: + and - prefixes', () => {
  it('+ requires, - excludes, unprefixed stays optional', () => {
    expect(std('+wing lift -drag')).toEqual(bool({ must: [term('wing')], should: [term('lift')], mustNot: [term('drag')] }));
  });

  it('apply to phrases and groups', () => {
    expect(std('+"swept wing" -(drag lift)')).toEqual(bool({ must: [phrase(['swept', 'wing'], [0, 1])], mustNot: [bool({ should: terms('drag', 'lift') })] }));
  });

  it('a lone -term matches everything without the term', () => {
    expect(std('-drag')).toEqual(bool({ must: [all], mustNot: [term('drag')] }));
  });

  it('keep working in sentences: explicit syntax is never second-guessed', () => {
    expect(eng('what methods -dash exact or approximate are available')).toEqual(
      bool({ should: terms('method', 'exact', 'approxim', 'avail'), mustNot: [term('dash')] }),
    );
  });

  it('read a minus before a digit as a sign and a hyphen inside a word as part of it', () => {
    expect(std('-5 degrees lift-drag')).toEqual(bool({ should: [term('5'), term('degrees'), bool({ should: terms('lift', 'drag') })] }));
  });
});

describe('parseQuery: phrases', () => {
  it("a quoted phrase keeps its terms' relative positions", () => {
    expect(std('"swept back wing"')).toEqual(phrase(['swept', 'back', 'wing'], [0, 1, 2]));
  });

  it('keeps the gaps of stop words the analyzer drops, so the phrase stays exact', () => {
    expect(eng('"flow of the heated air" wing')).toEqual(bool({ should: [phrase(['flow', 'heat', 'air'], [0, 3, 4]), term('wing')] }));
  });

  it('reads and, or, not inside quotes as words', () => {
    expect(std('"lift and drag" or "not stalled"')).toEqual(bool({ should: [phrase(['lift', 'and', 'drag'], [0, 1, 2]), phrase(['not', 'stalled'], [0, 1])] }));
    expect(std('"AND"')).toEqual(term('and'));
  });

  it('a one-word phrase is a term, and a phrase of stop words vanishes', () => {
    expect(eng('"wings" "of the" lift')).toEqual(bool({ should: terms('wing', 'lift') }));
  });

  it("one word the analyzer splits becomes a group of its terms, not a phrase (Lucene's default; better on Cranfield)", () => {
    expect(eng('three-point problem')).toEqual(bool({ should: [bool({ should: terms('three', 'point') }), term('problem')] }));
    expect(eng('three-point', { defaultOperator: 'AND' })).toEqual(bool({ must: terms('three', 'point') }));
  });
});

describe('parseQuery: parentheses', () => {
  it('groups nest, each combined with the default operator', () => {
    expect(std('(wing OR fin) AND (lift (drag OR thrust))')).toEqual(
      bool({ must: [bool({ should: terms('wing', 'fin') }), bool({ should: [term('lift'), bool({ should: terms('drag', 'thrust') })] })] }),
    );
  });

  it('merges a nested conjunction into its parent conjunction', () => {
    expect(std('x AND (y AND NOT z)')).toEqual(bool({ must: terms('x', 'y'), mustNot: [term('z')] }));
  });
});

describe('parseQuery: field qualifiers', () => {
  const fields = { title: englishAnalyzer, tag: keywordAnalyzer };

  it('field:term, field:"phrase" and field:(group) search one field with that field\'s analyzer', () => {
    expect(std('title:Flows tag:"New York" title:(wing lift)', { fields })).toEqual(
      bool({ should: [term('flow', 'title'), term('New York', 'tag'), bool({ should: [term('wing', 'title'), term('lift', 'title')] })] }),
    );
  });

  it('combines with prefixes', () => {
    expect(std('+title:wing -tag:draft', { fields })).toEqual(bool({ must: [term('wing', 'title')], mustNot: [term('draft', 'tag')] }));
  });

  it('reads name: as ordinary text when name is not a known field', () => {
    expect(std('ratio:2 title:', { fields })).toEqual(bool({ should: [bool({ should: terms('ratio', '2') }), term('title')] }));
  });
});

describe('parseQuery: malformed input degrades to terms', () => {
  it.each<[string, ReturnType<typeof std>]>([
    ['"unclosed phrase words', bool({ should: terms('unclosed', 'phrase', 'words') })],
    ['lift "drag', bool({ should: terms('lift', 'drag') })],
    ['((wing lift)', bool({ should: terms('wing', 'lift') })],
    ['wing) lift', bool({ should: terms('wing', 'lift') })],
    ['wing (lift (drag', bool({ should: [term('wing'), bool({ should: terms('lift', 'drag') })] })],
    ['wing AND', term('wing')],
    ['AND wing', term('wing')],
    ['wing OR OR lift', bool({ should: terms('wing', 'lift') })],
    ['wing NOT', term('wing')],
    ['NOT NOT wing', term('wing')],
    ['+ wing -', term('wing')],
    ['() wing', term('wing')],
  ])('%j', (q, expected) => {
    expect(std(q)).toEqual(expected);
  });

  it('survives pathological nesting and length without throwing', () => {
    expect(std(`${'('.repeat(10_000)}wing${')'.repeat(10_000)}`)).toEqual(term('wing'));
    expect(std(`${'NOT '.repeat(10_001)}wing`)).toEqual(bool({ must: [all], mustNot: [term('wing')] }));
    expect(() => std(`${'"'.repeat(999)} ${'AND OR NOT ( ) + - : '.repeat(500)}`)).not.toThrow();
  });
});

describe('parseQuery: empty and unusual input', () => {
  it('an empty or blank query matches every document (match-all search)', () => {
    expect(std('')).toEqual(all);
    expect(std('   ')).toEqual(all);
  });

  it('a query of only stop words or punctuation matches nothing', () => {
    expect(eng('the of and')).toEqual(none);
    expect(eng('+the -of')).toEqual(none);
    expect(std('?! --')).toEqual(none);
  });

  it('diacritics fold as in the index', () => {
    expect(std('Crème BRÛLÉE')).toEqual(bool({ should: terms('creme', 'brulee') }));
  });

  it('CJK text without spaces becomes a group of its words; emoji are ignored', () => {
    expect(std('東京の天気 😀')).toEqual(bool({ should: terms('東京', 'の', '天気') }));
    expect(std('😀🇫🇷')).toEqual(none);
  });
});

describe('parseQuery: minimumShouldMatch', () => {
  it('applies to the top-level optional clauses, counting a group as one', () => {
    expect(std('w x y z', { minimumShouldMatch: '75%' })).toEqual(bool({ should: terms('w', 'x', 'y', 'z'), minimumShouldMatch: 3 }));
    expect(std('w (x OR y) z', { minimumShouldMatch: '100%' })).toEqual(
      bool({ should: [term('w'), bool({ should: terms('x', 'y') }), term('z')], minimumShouldMatch: 3 }),
    );
    expect(std('+w x y z', { minimumShouldMatch: -1 })).toEqual(bool({ must: [term('w')], should: terms('x', 'y', 'z'), minimumShouldMatch: 2 }));
  });

  it('counts only clauses left after stop words are dropped', () => {
    expect(eng('the lift of the wing', { minimumShouldMatch: '100%' })).toEqual(bool({ should: terms('lift', 'wing'), minimumShouldMatch: 2 }));
  });

  it('has nothing to do under defaultOperator AND or for a single clause', () => {
    expect(std('x y', { minimumShouldMatch: '50%', defaultOperator: 'AND' })).toEqual(bool({ must: terms('x', 'y') }));
    expect(std('x', { minimumShouldMatch: '50%' })).toEqual(term('x'));
  });

  it('throws invalid_minimum_should_match (400) for a malformed value, even with an empty q', () => {
    expect(() => std('x y', { minimumShouldMatch: 'most' })).toThrow(InvalidMinimumShouldMatchError);
    expect(() => std('', { minimumShouldMatch: '200%' })).toThrow(InvalidMinimumShouldMatchError);
  });
});

describe('positiveLeaves', () => {
  it('lists the term and phrase leaves that can score or be highlighted, not the excluded ones', () => {
    expect(positiveLeaves(std('+wing "swept back" -drag (lift OR NOT thrust)'))).toEqual([term('wing'), phrase(['swept', 'back'], [0, 1]), term('lift')]);
  });
});
