/**
 * Porter2 (Snowball English) stemming without regular expressions: wink-porter2-stemmer 2.0.1's
 * algorithm, step for step, on character codes. It gives wink's stem for every word of `[a-z']+`
 * (including wink's own readings of the rules: a suffix counts as "in R1" when it occurs anywhere in
 * R1, only the first y after a vowel becomes consonantal, ...); test/plugins/search/porter2.test.ts
 * proves it on the vocabularies of the dev collections and WordNet and on generated words. Wink
 * takes ~10 µs a word (dozens of regular expressions and the strings they make); this is a step
 * through the word's last characters. Words of other characters must not reach it.
 */

const A = 97;
const E = 101;
const I = 105;
const O = 111;
const U = 117;
const Y = 121;
const THREE = 51; // wink marks a consonantal y as '3' until the end

function isVowel(c: number): boolean {
  return c === A || c === E || c === I || c === O || c === U || c === Y;
}

const exceptions1: ReadonlyMap<string, string> = new Map([
  ['skis', 'ski'],
  ['skies', 'sky'],
  ['dying', 'die'],
  ['lying', 'lie'],
  ['tying', 'tie'],
  ['idly', 'idl'],
  ['gently', 'gentl'],
  ['ugly', 'ugli'],
  ['early', 'earli'],
  ['only', 'onli'],
  ['singly', 'singl'],
  ['sky', 'sky'],
  ['news', 'news'],
  ['atlas', 'atlas'],
  ['cosmos', 'cosmos'],
  ['bias', 'bias'],
  ['andes', 'andes'],
]);

const exceptions2: ReadonlySet<string> = new Set(['inning', 'outing', 'canning', 'herring', 'proceed', 'exceed', 'succeed', 'earring']);

/**
 * Start of the region after the first non-vowel that follows a vowel, scanning from `from`; -1 when
 * there is none or it would be empty (wink's /[aeiouy]+([^aeiouy].+)/ fails then).
 */
function regionFrom(s: string, from: number): number {
  const n = s.length;
  let i = from;
  while (i < n && !isVowel(s.charCodeAt(i))) i++;
  if (i === n) return -1;
  while (i < n && isVowel(s.charCodeAt(i))) i++;
  return i + 1 < n ? i + 1 : -1;
}

/** R1 and R2 as start offsets in `s` (s.length when empty). */
function regions(s: string): { r1: number; r2: number } {
  const n = s.length;
  let r1 = regionFrom(s, 0);
  if (r1 < 0) return { r1: n, r2: n };
  if (s.startsWith('gener') || s.startsWith('arsen')) r1 = 5;
  else if (s.startsWith('commun')) r1 = 6;
  const r2 = regionFrom(s, r1);
  return { r1, r2: r2 < 0 ? n : r2 };
}

function isShort(s: string): boolean {
  const n = s.length;
  if (n >= 3) {
    const last = s.charCodeAt(n - 1);
    if (!isVowel(s.charCodeAt(n - 3)) && isVowel(s.charCodeAt(n - 2)) && !isVowel(last) && last !== 119 && last !== 120 && last !== THREE) return true;
  }
  if (n === 1) return isVowel(s.charCodeAt(0));
  if (n === 2) return isVowel(s.charCodeAt(0)) && !isVowel(s.charCodeAt(1));
  return false;
}

/** A suffix list by last letter, longest first: `longestSuffix` tries only those that can match. */
type SuffixTable = ReadonlyArray<readonly string[] | undefined>;

function suffixTable(suffixes: readonly string[]): SuffixTable {
  const table: string[][] = [];
  for (const x of [...suffixes].sort((a, b) => b.length - a.length)) (table[x.charCodeAt(x.length - 1)] ??= []).push(x);
  return table;
}

/** The longest suffix of the table that `s` ends with, or undefined. */
function longestSuffix(s: string, table: SuffixTable): string | undefined {
  const candidates = table[s.charCodeAt(s.length - 1)];
  if (candidates) for (const x of candidates) if (s.endsWith(x)) return x;
  return undefined;
}

function prelude(word: string): string {
  let s = word.charCodeAt(0) === Y ? `3${word.slice(1)}` : word;
  for (let i = 1; i < s.length; i++) {
    const c = s.charCodeAt(i - 1);
    if (s.charCodeAt(i) === Y && c !== Y && isVowel(c)) {
      s = `${s.slice(0, i)}3${s.slice(i + 1)}`;
      break;
    }
  }
  if (s.endsWith("'s")) s = s.slice(0, -2);
  if (s.endsWith("s'")) s = s.slice(0, -2);
  if (s.endsWith("'")) s = s.slice(0, -1);
  return s;
}

function step1a(s: string): string {
  const n = s.length;
  if (n >= 5 && s.endsWith('sses')) return s.slice(0, -2);
  if (n >= 4 && (s.endsWith('ied') || s.endsWith('ies'))) return n >= 5 ? `${s.slice(0, -3)}i` : `${s.slice(0, -3)}ie`;
  if (n >= 3 && (s.endsWith('us') || s.endsWith('ss'))) return s;
  if (n >= 2 && s.charCodeAt(n - 1) === 115) {
    // A vowel before the letter that precedes the s.
    for (let i = 0; i < n - 2; i++) if (isVowel(s.charCodeAt(i))) return s.slice(0, -1);
  }
  return s;
}

const doubles = new Set(['bb', 'dd', 'ff', 'gg', 'mm', 'nn', 'pp', 'rr', 'tt']);

function step1b(s: string): string {
  const n = s.length;
  const eed = s.endsWith('eedly') ? 5 : s.endsWith('eed') ? 3 : 0;
  if (eed > 0) return n - regions(s).r1 >= eed ? `${s.slice(0, n - eed)}ee` : s;
  const suffix = s.endsWith('ed') ? 2 : s.endsWith('edly') ? 4 : s.endsWith('ingly') ? 5 : s.endsWith('ing') ? 3 : 0;
  if (suffix === 0) return s;
  let vowel = false;
  for (let i = 0; i < n - suffix && !vowel; i++) vowel = isVowel(s.charCodeAt(i));
  if (!vowel) return s;
  const sd = s.slice(0, n - suffix);
  if (sd.endsWith('at') || sd.endsWith('bl') || sd.endsWith('iz')) return `${sd}e`;
  if (doubles.has(sd.slice(-2))) return sd.slice(0, -1);
  if (isShort(sd) && regions(sd).r1 === sd.length) return `${sd}e`;
  return sd;
}

function step1c(s: string): string {
  const n = s.length;
  if (n < 3) return s;
  const last = s.charCodeAt(n - 1);
  return (last === Y || last === THREE) && !isVowel(s.charCodeAt(n - 2)) ? `${s.slice(0, -1)}i` : s;
}

const step2Suffixes = suffixTable([
  'ization',
  'ational',
  'fulness',
  'ousness',
  'iveness',
  'tional',
  'biliti',
  'lessli',
  'entli',
  'ation',
  'alism',
  'aliti',
  'ousli',
  'iviti',
  'fulli',
  'enci',
  'anci',
  'abli',
  'izer',
  'ator',
  'alli',
  'bli',
  'ogi',
  'li',
]);
// wink's replacements, in its order (which is not the order of its suffix list).
const step2Rules: ReadonlyArray<[string, string]> = [
  ['ational', 'ate'],
  ['ization', 'ize'],
  ['fulness', 'ful'],
  ['ousness', 'ous'],
  ['iveness', 'ive'],
  ['tional', 'tion'],
  ['biliti', 'ble'],
  ['lessli', 'less'],
  ['iviti', 'ive'],
  ['ousli', 'ous'],
  ['ation', 'ate'],
  ['entli', 'ent'],
  ['alism', 'al'],
  ['aliti', 'al'],
  ['fulli', 'ful'],
  ['alli', 'al'],
  ['ator', 'ate'],
  ['izer', 'ize'],
  ['enci', 'ence'],
  ['anci', 'ance'],
  ['abli', 'able'],
  ['bli', 'ble'],
  ['logi', 'log'],
];
const liEndings = new Set('cdeghkmnrt');

function step2(s: string): string {
  const match = longestSuffix(s, step2Suffixes);
  if (match === undefined || s.indexOf(match, regions(s).r1) < 0) return s;
  for (const [suffix, replacement] of step2Rules) if (s.endsWith(suffix)) return s.slice(0, s.length - suffix.length) + replacement;
  if (s.length >= 3 && s.endsWith('li') && liEndings.has(s[s.length - 3]!)) return s.slice(0, -2);
  return s;
}

const step3Suffixes = suffixTable(['ational', 'tional', 'alize', 'icate', 'iciti', 'ative', 'ical', 'ness', 'ful']);
const step3Rules: ReadonlyArray<[string, string]> = [
  ['ational', 'ate'],
  ['tional', 'tion'],
  ['alize', 'al'],
  ['icate', 'ic'],
  ['iciti', 'ic'],
  ['ical', 'ic'],
  ['ness', ''],
  ['ful', ''],
];

function step3(s: string): string {
  const match = longestSuffix(s, step3Suffixes);
  if (match === undefined) return s;
  const { r1, r2 } = regions(s);
  if (s.indexOf(match, r1) < 0) return s;
  for (const [suffix, replacement] of step3Rules) if (s.endsWith(suffix)) return s.slice(0, s.length - suffix.length) + replacement;
  return s.indexOf('ative', r2) >= 0 && s.endsWith('ative') ? s.slice(0, -5) : s;
}

const step4Suffixes = suffixTable([
  'ement',
  'ance',
  'ence',
  'able',
  'ible',
  'ment',
  'ant',
  'ent',
  'ism',
  'ate',
  'iti',
  'ous',
  'ive',
  'ize',
  'ion',
  'al',
  'er',
  'ic',
]);

function step4(s: string): string {
  const match = longestSuffix(s, step4Suffixes);
  if (match === undefined || s.indexOf(match, regions(s).r2) < 0) return s;
  // No other suffix ends in "n", so "ion" is never beside a longer one.
  if (match !== 'ion') return s.slice(0, s.length - match.length);
  const n = s.length;
  const before = n >= 4 ? s.charCodeAt(n - 4) : 0;
  return before === 115 || before === 116 ? s.slice(0, -3) : s;
}

function step5(s: string): string {
  const n = s.length;
  const last = s.charCodeAt(n - 1);
  if (last === E) {
    const { r1, r2 } = regions(s);
    const preceding = s.slice(0, -1);
    return s.indexOf('e', r2) >= 0 || (s.indexOf('e', r1) >= 0 && !isShort(preceding)) ? preceding : s;
  }
  if (last === 108) return regions(s).r2 < n && s.endsWith('ll') ? s.slice(0, -1) : s;
  return s;
}

/** The Porter2 stem of a lower-case word of `[a-z']+`, exactly as wink-porter2-stemmer gives it. */
export function porter2(word: string): string {
  if (word.length < 3) return word;
  const exception = exceptions1.get(word);
  if (exception !== undefined) return exception;
  let s = step1a(prelude(word));
  if (!exceptions2.has(s)) s = step5(step4(step3(step2(step1c(step1b(s))))));
  return s.includes('3') ? s.replaceAll('3', 'y') : s;
}
