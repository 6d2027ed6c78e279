import { CharTable, hashString } from './char-table.js';

/**
 * Interned terms for the indexing path: the segment builder asks an analyzer for term ids instead
 * of token objects, so that a document's words cost no allocation once their terms are known (a
 * token object, a sliced string and a lower-cased copy per word were most of the build's garbage).
 *
 * Ids are valid until `resetTermIdsIfLarge()` drops them, which only the segment builder calls,
 * before a build: a build is synchronous, so no id outlives the build that asked for it.
 */

// About 10 MB of interned terms, and as much per analyzer's word table, at most between builds; a build adds its own distinct
// words on top, which its postings hold anyway.
const MAX_TERMS = 262_144;

let termText: string[] = [];
const termIndex = new CharTable();
const caches: TermIdCache[] = [];

/** A memo that holds ids (a word table): dropped with them, and counted towards the bound. */
export interface TermIdCache {
  readonly size: number;
  clear(): void;
}

/** The id of `term`, interning it on first sight. */
export function internTerm(term: string): number {
  const h = hashString(term);
  const e = termIndex.find(term, h);
  if (e >= 0) return termIndex.value(e);
  const id = termText.length;
  termText.push(term);
  termIndex.insert(term, h, id);
  return id;
}

/** The text of an id from `internTerm`. */
export function termOf(id: number): string {
  return termText[id]!;
}

/** How many ids are interned: every id is below it. */
export function termIdCount(): number {
  return termText.length;
}

export function registerTermIdCache(cache: TermIdCache): void {
  caches.push(cache);
}

/**
 * Forgets every id, and every cache of them, once the ids or a cache pass the bound; call it
 * between builds.
 */
export function resetTermIdsIfLarge(): void {
  if (termText.length <= MAX_TERMS && caches.every((c) => c.size <= MAX_TERMS)) return;
  termText = [];
  termIndex.clear();
  for (const cache of caches) cache.clear();
}

/** Growable (term id, position) pairs an analyzer appends to: the terms of one value, in order. */
export class TermPositions {
  ids = new Uint32Array(256);
  positions = new Uint32Array(256);
  length = 0;

  clear(): void {
    this.length = 0;
  }

  push(id: number, position: number): void {
    if (this.length === this.ids.length) this.grow();
    this.ids[this.length] = id;
    this.positions[this.length++] = position;
  }

  private grow(): void {
    const ids = new Uint32Array(this.ids.length * 2);
    ids.set(this.ids);
    this.ids = ids;
    const positions = new Uint32Array(this.positions.length * 2);
    positions.set(this.positions);
    this.positions = positions;
  }
}
