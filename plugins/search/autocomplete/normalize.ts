/**
 * How autocomplete compares text: lower-cased, diacritics folded, split into words of letters and
 * digits (apostrophes inside a word are kept: "o'neill"). "Café Crème" and "cafe creme" are one key.
 */
import { foldDiacritics } from '../analysis/fold-diacritics.js';

const wordPattern = /[\p{L}\p{N}]+(?:['’][\p{L}\p{N}]+)*/gu;

/** The words of `text`, normalised. */
export function suggestionWords(text: string): string[] {
  const folded = foldDiacritics(text.toLowerCase());
  return folded.match(wordPattern)?.map((w) => w.replace(/’/g, "'")) ?? [];
}

/** The normalised form of a whole suggestion: its words joined by single spaces. */
export function normaliseSuggestion(text: string): string {
  return suggestionWords(text).join(' ');
}

/**
 * What a query asks for: the words before the last narrow, the last completes as a prefix. `q`
 * ending in a space ("new ") completes nothing more: every word is whole, and the last still
 * counts as a prefix of itself, so "new " suggests "new york" as "new" does.
 */
export interface PrefixQuery {
  /** The whole query, normalised. */
  text: string;
  /** Words before the last. */
  context: string[];
  /** The last word: the prefix to complete. */
  prefix: string;
  /** Edits allowed on the prefix: 0 below 4 characters, 1 from 4, 2 from 8 (Damerau). */
  maxEdits: number;
}

export function parsePrefixQuery(q: string): PrefixQuery | undefined {
  const words = suggestionWords(q);
  if (words.length === 0) return undefined;
  const prefix = words[words.length - 1]!;
  const length = [...prefix].length;
  return { text: words.join(' '), context: words.slice(0, -1), prefix, maxEdits: length >= 8 ? 2 : length >= 4 ? 1 : 0 };
}
