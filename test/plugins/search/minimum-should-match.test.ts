import { describe, expect, it } from 'vitest';
import { InputError } from '../../../runtime/errors.js';
import { InvalidMinimumShouldMatchError, parseMinimumShouldMatch, resolveMinimumShouldMatch } from '../../../plugins/search/query/minimum-should-match.js';

describe('parseMinimumShouldMatch', () => {
  it('reads percentages, negative percentages, counts and negative counts, as strings or numbers', () => {
    expect(parseMinimumShouldMatch('75%')).toEqual({ kind: 'percent', value: 75 });
    expect(parseMinimumShouldMatch(' -25% ')).toEqual({ kind: 'percent', value: -25 });
    expect(parseMinimumShouldMatch('100%')).toEqual({ kind: 'percent', value: 100 });
    expect(parseMinimumShouldMatch('2')).toEqual({ kind: 'count', value: 2 });
    expect(parseMinimumShouldMatch('-1')).toEqual({ kind: 'count', value: -1 });
    expect(parseMinimumShouldMatch(3)).toEqual({ kind: 'count', value: 3 });
  });

  it.each([['abc'], ['75'.concat('%%')], ['150%'], ['-101%'], ['7.5%'], [''], ['%'], ['1 2'], [1.5], [Number.NaN]])(
    'rejects %j with a 400 invalid_minimum_should_match error',
    (value) => {
      let error: unknown;
      try {
        parseMinimumShouldMatch(value as string | number);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(InvalidMinimumShouldMatchError);
      expect(error).toBeInstanceOf(InputError);
      expect((error as InvalidMinimumShouldMatchError).status).toBe(400);
      expect((error as InvalidMinimumShouldMatchError).code).toBe('invalid_minimum_should_match');
      expect((error as InvalidMinimumShouldMatchError).details).toEqual({ value });
    },
  );
});

describe('resolveMinimumShouldMatch', () => {
  it('rounds percentages down, counts negatives from the total, and clamps to [0, clauses]', () => {
    const resolve = (spec: string, n: number) => resolveMinimumShouldMatch(parseMinimumShouldMatch(spec), n);
    expect([resolve('75%', 4), resolve('75%', 3), resolve('-25%', 4), resolve('-25%', 3)]).toEqual([3, 2, 3, 3]);
    expect([resolve('2', 4), resolve('-1', 4), resolve('9', 4), resolve('-9', 4), resolve('0%', 4), resolve('100%', 4)]).toEqual([2, 3, 4, 0, 0, 4]);
  });
});
