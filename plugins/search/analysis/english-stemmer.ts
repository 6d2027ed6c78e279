import { porter2 } from './porter2.js';

// ~10 MB at most; a 100k-document corpus has about 100k distinct words.
const MAX_CACHED = 131_072;
const cache = new Map<string, string>();

/**
 * The Porter2 (Snowball English) stem of a lower-cased word. Words with digits, underscores,
 * dots or non-ASCII letters are returned as they are: the stemmer is defined for English letters
 * only (it turns "3.14" into "y.14"). Stems are memoised, since word frequencies are Zipfian.
 */
export function stemEnglish(word: string): string {
  let stem = cache.get(word);
  if (stem !== undefined) return stem;
  stem = stemOnce(word);
  if (cache.size >= MAX_CACHED) cache.clear();
  cache.set(word, stem);
  return stem;
}

/** `stemEnglish` without the memo, for callers that keep their own (the indexing path's word table). */
export function stemOnce(word: string): string {
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if ((c < 97 || c > 122) && c !== 39) return word;
  }
  return word === '' ? word : porter2(word);
}

/** Drops a trailing possessive "'s" (as Lucene's EnglishPossessiveFilter does before stop words). */
export function stripPossessive(word: string): string {
  return word.length > 2 && word.endsWith("'s") ? word.slice(0, -2) : word;
}
