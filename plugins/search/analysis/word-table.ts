import { CharTable, hashLowerAscii, hashString } from './char-table.js';
import { foldDiacritics } from './fold-diacritics.js';
import { internTerm, registerTermIdCache, type TermPositions } from './term-ids.js';
import { segmentWords } from './word-segmenter.js';

/** The value of a word the analyzer drops (a stop word). */
const DROPPED = -1;

/**
 * A memo from a word, as the tokenizer normalises it (lower-cased; non-ASCII words folded), to its
 * term id, or to "dropped", for one analyzer's indexing path. An ASCII word is looked up straight
 * from the text's characters: no string is made for a word the table knows, so a document of known
 * words costs no allocation.
 */
export class WordTable {
  private readonly words = new CharTable();

  /** `term` maps a normalised word to its term, or null to drop it. */
  constructor(private readonly term: (word: string) => string | null) {
    registerTermIdCache(this.words);
  }

  /** Appends the term id and word position of each of `text`'s kept words to `out`. */
  collect(text: string, out: TermPositions): void {
    let position = 0;
    segmentWords(text, (start, end, ascii) => {
      const id = ascii ? this.lookupAscii(text, start, end) : this.lookupWord(foldDiacritics(text.slice(start, end)));
      if (id !== DROPPED) out.push(id, position);
      position++;
    });
  }

  private lookupAscii(text: string, start: number, end: number): number {
    const h = hashLowerAscii(text, start, end);
    const e = this.words.findLowerAscii(text, start, end, h);
    return e >= 0 ? this.words.value(e) : this.add(text.slice(start, end).toLowerCase(), h);
  }

  private lookupWord(word: string): number {
    const h = hashString(word);
    const e = this.words.find(word, h);
    return e >= 0 ? this.words.value(e) : this.add(word, h);
  }

  private add(word: string, h: number): number {
    const term = this.term(word);
    const value = term === null ? DROPPED : internTerm(term);
    this.words.insert(word, h, value);
    return value;
  }
}
