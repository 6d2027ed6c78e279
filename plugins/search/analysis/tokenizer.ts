import { foldDiacritics } from './fold-diacritics.js';
import { segmentWords } from './word-segmenter.js';

/** One word of a text: its normalised form, its word position and where it sits in the text. */
export interface Token {
  term: string;
  /** 0-based index among the text's words; filters that drop words keep the others' positions. */
  position: number;
  /** UTF-16 offset of the word's first character in the original text. */
  start: number;
  /** UTF-16 offset just past the word's last character. */
  end: number;
}

export interface TokenizeOptions {
  /** @default true */
  lowercase?: boolean;
  /** Diacritic and compatibility folding (implies lower-casing). @default true */
  fold?: boolean;
}

/**
 * Splits text into words (Unicode word segmentation), lower-cased and diacritic-folded by
 * default. ASCII words need no folding, so only non-ASCII words pay for normalisation.
 */
export function tokenize(text: string, options: TokenizeOptions = {}): Token[] {
  const fold = options.fold ?? true;
  const lowercase = fold || (options.lowercase ?? true);
  const tokens: Token[] = [];
  segmentWords(text, (start, end, ascii) => {
    const word = text.slice(start, end);
    const term = ascii ? (lowercase ? word.toLowerCase() : word) : fold ? foldDiacritics(word) : lowercase ? word.toLowerCase() : word;
    tokens.push({ term, position: tokens.length, start, end });
  });
  return tokens;
}
