import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import wink from 'wink-porter2-stemmer';
import { describe, expect, it } from 'vitest';
import { stemEnglish } from '../../../plugins/search/analysis/english-stemmer.js';
import { porter2 } from '../../../plugins/search/analysis/porter2.js';

/**
 * The regex-free Porter2 must give wink-porter2-stemmer's stem for every word, or the index would
 * hold other terms than it did and relevance would move. Checked on every word of the dev
 * collections and WordNet (../shared/data) and on words generated to reach every rule: each
 * suffix the rules name, after a sample of real words, with and without a leading y, and random
 * strings over the letters the rules test.
 */
const DATA = fileURLToPath(new URL('../../../../shared/data/', import.meta.url));
const COLLECTIONS = ['cranfield', 'nfcorpus_pp', 'cisi'];
const WORDNET = `${DATA}corpus/wordnet_glosses.jsonl.gz`;

function wordsOf(text: string, into: Set<string>): void {
  for (const w of text.toLowerCase().match(/[a-z']+/g) ?? []) into.add(w);
}

function corpusVocabulary(): Set<string> {
  const words = new Set<string>();
  for (const c of COLLECTIONS) {
    for (const f of readdirSync(DATA + c)) if (f.endsWith('.jsonl')) wordsOf(readFileSync(`${DATA}${c}/${f}`, 'utf8'), words);
  }
  wordsOf(gunzipSync(readFileSync(WORDNET)).toString('utf8'), words);
  return words;
}

const SUFFIXES = (
  'sses ied ies us ss s eedly eed ed edly ingly ing at bl iz y ization ational fulness ousness iveness tional biliti lessli entli ation alism aliti ousli ' +
  'iviti fulli enci anci abli izer ator alli bli ogi logi li cli dli eli gli hli kli mli nli rli tli alize icate iciti ative ical ness ful ement ance ' +
  "ence able ible ment ant ent ism ate iti ous ive ize ion sion tion al er ic e l ll 's s' ' yy ay ey"
).split(' ');

function generatedWords(sample: readonly string[]): Set<string> {
  const words = new Set<string>();
  for (const base of [...sample, 'gener', 'commun', 'arsen', 'generat', 'communal', 'b', 'ab', 'y', '']) {
    for (const suffix of SUFFIXES) {
      words.add(base + suffix);
      words.add(`y${base}${suffix}`);
    }
  }
  let seed = 12345;
  const random = (): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const letters = "aeiouybcdglmnrstxw'";
  for (let i = 0; i < 150_000; i++) {
    let w = '';
    for (let k = 1 + Math.floor(random() * 9); k > 0; k--) w += letters[Math.floor(random() * letters.length)];
    words.add(random() < 0.5 ? w + SUFFIXES[Math.floor(random() * SUFFIXES.length)]! : w);
  }
  return words;
}

function mismatches(words: Iterable<string>): Array<[string, string, string]> {
  const bad: Array<[string, string, string]> = [];
  for (const w of words) {
    if (w === '') continue;
    const expected = wink(w);
    const actual = porter2(w);
    if (actual !== expected) bad.push([w, expected, actual]);
  }
  return bad;
}

const haveCorpora = COLLECTIONS.every((c) => existsSync(DATA + c)) && existsSync(WORDNET);

describe('porter2', () => {
  it.skipIf(!haveCorpora)("gives wink-porter2-stemmer's stem for every word of Cranfield, nfcorpus_pp, CISI and WordNet", () => {
    const vocabulary = corpusVocabulary();
    expect(vocabulary.size).toBeGreaterThan(100_000);
    expect(mismatches(vocabulary)).toEqual([]);
  });

  it("gives wink-porter2-stemmer's stem for words made to reach every rule", () => {
    const sample = ['generalization', 'running', 'happy', 'sky', 'agreed', 'feed', 'hopping', 'controlled', 'flying', 'relational', 'conditional'];
    const words = generatedWords([...sample, ...'abcdefghijklmnopqrstuvwxyz'.split('').map((c) => `${c}a${c}`)]);
    expect(words.size).toBeGreaterThan(100_000);
    expect(mismatches(words)).toEqual([]);
  });

  it('stems known words as the Porter2 rules say', () => {
    const stems = ['consisting', 'generalizations', 'skies', 'dying', 'agreed', 'hopping', 'happiness', "wing's", 'yelling', 'cosmos', 'communism'].map(
      porter2,
    );
    expect(stems).toEqual(['consist', 'general', 'sky', 'die', 'agre', 'hop', 'happi', 'wing', 'yell', 'cosmos', 'communism']);
  });

  it('leaves words with digits, dots or other letters to the caller unstemmed (stemEnglish)', () => {
    expect(['3.14', 'x15', 'naïve', 'under_score', 'flows'].map(stemEnglish)).toEqual(['3.14', 'x15', 'naïve', 'under_score', 'flow']);
  });
});
