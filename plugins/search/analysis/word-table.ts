import { foldDiacritics } from './fold-diacritics.js';
import { internTerm, onTermIdsReset, type TermPositions } from './term-ids.js';
import { segmentWords } from './word-segmenter.js';

/**
 * A memo from a word, as the tokenizer normalises it (lower-cased; non-ASCII words folded), to its
 * term id, or to "dropped" (a stop word), for one analyzer's indexing path. An ASCII word is looked
 * up straight from the text's characters, lower-cased on the fly: no string is made for a word the
 * table knows, so a document of known words costs no allocation. The table holds the words' UTF-16
 * code units in one arena, with open addressing on a hash of them.
 */
const DROPPED = -1;

export class WordTable {
  private slots = new Int32Array(1 << 16); // entry index + 1; 0 is empty
  private hashes = new Int32Array(1 << 15);
  private starts = new Uint32Array(1 << 15);
  private lengths = new Uint32Array(1 << 15);
  private values = new Int32Array(1 << 15);
  private chars = new Uint16Array(1 << 18);
  private count = 0;
  private used = 0;

  /** `term` maps a normalised word to its term, or null to drop it. */
  constructor(private readonly term: (word: string) => string | null) {
    onTermIdsReset(() => this.reset());
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

  private reset(): void {
    this.slots.fill(0);
    this.count = 0;
    this.used = 0;
  }

  /** The value of text[start, end) lower-cased (ASCII only), adding it on a miss. */
  private lookupAscii(text: string, start: number, end: number): number {
    let h = -2128831035;
    for (let i = start; i < end; i++) {
      let c = text.charCodeAt(i);
      if (c >= 65 && c <= 90) c |= 32;
      h = Math.imul(h ^ c, 16777619);
    }
    const mask = this.slots.length - 1;
    const len = end - start;
    for (let s = h & mask; ; s = (s + 1) & mask) {
      const e = this.slots[s]! - 1;
      if (e < 0) break;
      if (this.hashes[e] !== h || this.lengths[e] !== len) continue;
      let i = 0;
      const base = this.starts[e]!;
      for (; i < len; i++) {
        let c = text.charCodeAt(start + i);
        if (c >= 65 && c <= 90) c |= 32;
        if (this.chars[base + i] !== c) break;
      }
      if (i === len) return this.values[e]!;
    }
    return this.add(text.slice(start, end).toLowerCase(), h);
  }

  /** The value of an already normalised word, adding it on a miss. */
  private lookupWord(word: string): number {
    const h = hashOf(word);
    const mask = this.slots.length - 1;
    const len = word.length;
    for (let s = h & mask; ; s = (s + 1) & mask) {
      const e = this.slots[s]! - 1;
      if (e < 0) break;
      if (this.hashes[e] !== h || this.lengths[e] !== len) continue;
      let i = 0;
      const base = this.starts[e]!;
      while (i < len && this.chars[base + i] === word.charCodeAt(i)) i++;
      if (i === len) return this.values[e]!;
    }
    return this.add(word, h);
  }

  private add(word: string, h: number): number {
    const term = this.term(word);
    const value = term === null ? DROPPED : internTerm(term);
    if (this.count === this.hashes.length) this.growEntries();
    if (this.used + word.length > this.chars.length) {
      const chars = new Uint16Array(Math.max(this.chars.length * 2, this.used + word.length));
      chars.set(this.chars.subarray(0, this.used));
      this.chars = chars;
    }
    const e = this.count++;
    this.hashes[e] = h;
    this.starts[e] = this.used;
    this.lengths[e] = word.length;
    this.values[e] = value;
    for (let i = 0; i < word.length; i++) this.chars[this.used++] = word.charCodeAt(i);
    if (this.count * 2 > this.slots.length) this.rehash(this.slots.length * 2);
    else this.place(e);
    return value;
  }

  private place(e: number): void {
    const mask = this.slots.length - 1;
    let s = this.hashes[e]! & mask;
    while (this.slots[s] !== 0) s = (s + 1) & mask;
    this.slots[s] = e + 1;
  }

  private rehash(size: number): void {
    this.slots = new Int32Array(size);
    for (let e = 0; e < this.count; e++) this.place(e);
  }

  private growEntries(): void {
    const n = this.hashes.length * 2;
    const grow = <T extends Int32Array | Uint32Array>(a: T, make: (n: number) => T): T => {
      const b = make(n);
      b.set(a);
      return b;
    };
    this.hashes = grow(this.hashes, (k) => new Int32Array(k));
    this.starts = grow(this.starts, (k) => new Uint32Array(k));
    this.lengths = grow(this.lengths, (k) => new Uint32Array(k));
    this.values = grow(this.values, (k) => new Int32Array(k));
  }
}

function hashOf(word: string): number {
  let h = -2128831035;
  for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 16777619);
  return h;
}
