import { describe, expect, it } from 'vitest';
import { applyNaturalLanguageOperators, isProse } from '../../../plugins/search/query/natural-language-operators.js';
import { lexQuery } from '../../../plugins/search/query/query-lexer.js';

/** The token stream after the rule, written back as text: operators upper-case, words as typed. */
function read(q: string, mode?: 'auto' | 'always' | 'never'): string {
  return applyNaturalLanguageOperators(lexQuery(q), mode)
    .map((t) => (t.kind === 'op' ? t.op : t.kind === 'open' ? '(' : t.kind === 'close' ? ')' : t.kind === 'phrase' ? `"${t.text}"` : t.text))
    .join(' ');
}

describe('isProse', () => {
  it('calls a query with two or more function words a sentence', () => {
    expect(isProse(lexQuery('vitamin D is not linked to fewer fractures in older adults'))).toBe(true);
    expect(isProse(lexQuery('what are the structural and aeroelastic problems'))).toBe(true);
  });

  it('calls a query with at most one function word a keyword query', () => {
    expect(isProse(lexQuery('cats and dogs'))).toBe(false);
    expect(isProse(lexQuery('recipes with chicken but not onions'))).toBe(false);
  });

  it('does not count function words inside quoted phrases', () => {
    expect(isProse(lexQuery('"the lord of the rings" or hobbit'))).toBe(false);
  });
});

describe('applyNaturalLanguageOperators', () => {
  it('makes and, or, not, but not and without operators in a keyword query', () => {
    expect(read('cats and dogs')).toBe('cats AND dogs');
    expect(read('cats or dogs')).toBe('cats OR dogs');
    expect(read('jaguar not car')).toBe('jaguar NOT car');
    expect(read('chicken recipes but not curry')).toBe('chicken recipes NOT curry');
    expect(read('jaguar without cars')).toBe('jaguar NOT cars');
  });

  it('accepts any letter case for the natural-language forms', () => {
    expect(read('Cats And dogs Without fleas')).toBe('Cats AND dogs NOT fleas');
  });

  it('leaves them words in a sentence', () => {
    expect(read('vitamin D is not linked to fewer fractures')).toBe('vitamin D is not linked to fewer fractures');
    expect(read('what is the lift and drag of a wing')).toBe('what is the lift and drag of a wing');
  });

  it('leaves them words where they have nothing to apply to', () => {
    expect(read('and cats')).toBe('and cats');
    expect(read('cats or')).toBe('cats or');
    expect(read('cats not')).toBe('cats not');
    expect(read('cats but')).toBe('cats but');
    expect(read('cats and )')).toBe('cats and )');
  });

  it('applies them next to groups and phrases', () => {
    expect(read('(cats or dogs) and "pet food"')).toBe('( cats OR dogs ) AND "pet food"');
    expect(read('pets but not (cats or dogs)')).toBe('pets NOT ( cats OR dogs )');
  });

  it('leaves prefixed and field-qualified forms alone', () => {
    expect(read('cats +and dogs')).toBe('cats and dogs');
  });

  it('can be forced on or off', () => {
    expect(read('what is the lift and drag', 'always')).toBe('what is the lift AND drag');
    expect(read('cats and dogs', 'never')).toBe('cats and dogs');
  });
});
