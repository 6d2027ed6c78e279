/**
 * A hash table from strings to integers kept in typed arrays: the keys' UTF-16 code units in one
 * arena, open addressing on an FNV-1a hash of them. A key can be looked up straight from a range of
 * a larger text (lower-cased on the fly), so the indexing path finds a known word without making a
 * string, and the table adds no per-key object for the garbage collector to trace (a `Map` of 100k
 * words cost ~3 µs an insertion here). A slot holds the hash beside the entry, and an entry its
 * start, length and value side by side, so that a lookup touches three cache lines: the slot, the
 * entry and the characters.
 */
export class CharTable {
  /** Per slot: hash, entry + 1 (0: empty). */
  private slots = new Int32Array(2 << 12);
  /** Per entry: start in `chars`, length, value. */
  private entries = new Int32Array(3 << 11);
  private chars = new Uint16Array(1 << 14);
  private used = 0;
  size = 0;

  clear(): void {
    this.slots.fill(0);
    this.size = 0;
    this.used = 0;
  }

  /** The entry of text[start, end) with A-Z lower-cased (its hash from `hashLowerAscii`), or -1. */
  findLowerAscii(text: string, start: number, end: number, h: number): number {
    const slots = this.slots;
    const mask = (slots.length >> 1) - 1;
    const len = end - start;
    for (let s = h & mask; ; s = (s + 1) & mask) {
      const e = slots[2 * s + 1]! - 1;
      if (e < 0) return -1;
      if (slots[2 * s] !== h || this.entries[3 * e + 1] !== len) continue;
      const base = this.entries[3 * e]!;
      let i = 0;
      for (; i < len; i++) {
        let c = text.charCodeAt(start + i);
        if (c >= 65 && c <= 90) c |= 32;
        if (this.chars[base + i] !== c) break;
      }
      if (i === len) return e;
    }
  }

  /** The entry of `key` (its hash from `hashString`), or -1. */
  find(key: string, h: number): number {
    const slots = this.slots;
    const mask = (slots.length >> 1) - 1;
    const len = key.length;
    for (let s = h & mask; ; s = (s + 1) & mask) {
      const e = slots[2 * s + 1]! - 1;
      if (e < 0) return -1;
      if (slots[2 * s] !== h || this.entries[3 * e + 1] !== len) continue;
      const base = this.entries[3 * e]!;
      let i = 0;
      while (i < len && this.chars[base + i] === key.charCodeAt(i)) i++;
      if (i === len) return e;
    }
  }

  value(entry: number): number {
    return this.entries[3 * entry + 2]!;
  }

  /** Adds `key` (absent; `h` = `hashString(key)`) with `value`. */
  insert(key: string, h: number, value: number): void {
    if (3 * (this.size + 1) > this.entries.length) {
      const entries = new Int32Array(this.entries.length * 2);
      entries.set(this.entries);
      this.entries = entries;
    }
    if (this.used + key.length > this.chars.length) {
      const chars = new Uint16Array(Math.max(this.chars.length * 2, this.used + key.length));
      chars.set(this.chars.subarray(0, this.used));
      this.chars = chars;
    }
    const e = this.size++;
    this.entries[3 * e] = this.used;
    this.entries[3 * e + 1] = key.length;
    this.entries[3 * e + 2] = value;
    for (let i = 0; i < key.length; i++) this.chars[this.used++] = key.charCodeAt(i);
    this.place(h, e);
    if (this.size > this.slots.length >> 2) this.rehash();
  }

  private place(h: number, e: number): void {
    const slots = this.slots;
    const mask = (slots.length >> 1) - 1;
    let s = h & mask;
    while (slots[2 * s + 1] !== 0) s = (s + 1) & mask;
    slots[2 * s] = h;
    slots[2 * s + 1] = e + 1;
  }

  /** Doubles the slots (load stays at most 1/2), placing each entry again by its stored hash. */
  private rehash(): void {
    const old = this.slots;
    this.slots = new Int32Array(old.length * 2);
    for (let s = 0; s < old.length; s += 2) if (old[s + 1] !== 0) this.place(old[s]!, old[s + 1]! - 1);
  }
}

const FNV_OFFSET = -2128831035;
const FNV_PRIME = 16777619;

/** The hash of text[start, end) with A-Z lower-cased: `hashString` of the lower-cased word. */
export function hashLowerAscii(text: string, start: number, end: number): number {
  let h = FNV_OFFSET;
  for (let i = start; i < end; i++) {
    let c = text.charCodeAt(i);
    if (c >= 65 && c <= 90) c |= 32;
    h = Math.imul(h ^ c, FNV_PRIME);
  }
  return h;
}

export function hashString(key: string): number {
  let h = FNV_OFFSET;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), FNV_PRIME);
  return h;
}
