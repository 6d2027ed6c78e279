/**
 * Finds the words of a vocabulary that a typed prefix could be the start of, with typos: a word
 * matches when some prefix of it is within `maxEdits` Damerau edits of the typed prefix (insertion,
 * deletion, substitution, or a swap of two adjacent letters: optimal string alignment).
 *
 * The sorted vocabulary is laid out as a trie in preorder, in typed arrays: a node's subtree is the
 * contiguous run of nodes up to `end[node]`, and the words below it the contiguous run of word
 * numbers from `before[node]` to `before[end[node]]`. The typo search walks the nodes once, one
 * dynamic programming row per node (a child's row is computed from its parent's, which sits at the
 * row of one less depth), and a branch whose row has no cell within the budget is skipped whole by
 * jumping to `end[node]`; a branch whose every word matches is taken whole as a range of word
 * numbers. No string is compared or allocated during a walk, and the arrays sit together in memory.
 */

/** A word of the vocabulary (its number in sorted order) and the fewest edits any of its prefixes needs. */
export type WordVisitor = (word: number, edits: number) => void;

export class PrefixTrie {
  /** The vocabulary, ascending by UTF-16 code unit, distinct, no empty word. */
  readonly words: readonly string[];
  /** Per node: the character that leads to it (the root's is unused). */
  private readonly chars: Uint16Array;
  /** Per node: its depth (the root is 0). */
  private readonly depth: Int32Array;
  /** Per node: the node after its subtree. */
  private readonly end: Int32Array;
  /** Per node (and one past the last): how many words end at nodes before it. */
  private readonly before: Int32Array;
  /** Per node: 1 when a word ends there (that word's number is `before[node]`). */
  private readonly terminal: Uint8Array;
  private readonly maxDepth: number;
  /** Rows of the walk, by depth, reused between walks of the same typed length. */
  private rows: Int32Array[] = [];

  constructor(sorted: readonly string[]) {
    this.words = sorted;
    let nodes = 1;
    let maxDepth = 0;
    let previous = '';
    for (const word of sorted) {
      nodes += word.length - commonPrefix(previous, word);
      if (word.length > maxDepth) maxDepth = word.length;
      previous = word;
    }
    this.maxDepth = maxDepth;
    this.chars = new Uint16Array(nodes);
    this.depth = new Int32Array(nodes);
    this.end = new Int32Array(nodes);
    this.before = new Int32Array(nodes + 1);
    this.terminal = new Uint8Array(nodes);
    // The node at each depth of the path to the previous word.
    const path = new Int32Array(maxDepth + 1);
    let count = 1;
    previous = '';
    for (let w = 0; w < sorted.length; w++) {
      const word = sorted[w]!;
      const shared = commonPrefix(previous, word);
      for (let d = previous.length; d > shared; d--) this.end[path[d]!] = count;
      for (let d = shared + 1; d <= word.length; d++) {
        const node = count++;
        this.chars[node] = word.charCodeAt(d - 1);
        this.depth[node] = d;
        this.before[node] = w;
        path[d] = node;
      }
      // Sorted and distinct: a word is never a prefix of the one before it, so its last node is new.
      this.terminal[path[word.length]!] = 1;
      previous = word;
    }
    for (let d = previous.length; d > 0; d--) this.end[path[d]!] = count;
    this.end[0] = count;
    this.before[count] = sorted.length;
  }

  get size(): number {
    return this.words.length;
  }

  /** The node reached by `prefix` from the root, or -1. */
  private descend(prefix: string, from = 0): number {
    let node = from;
    for (let d = this.depth[from]!; d < prefix.length; d++) {
      const c = prefix.charCodeAt(d);
      let child = node + 1;
      const stop = this.end[node]!;
      while (child < stop && this.chars[child] !== c) child = this.end[child]!;
      if (child >= stop) return -1;
      node = child;
    }
    return node;
  }

  /** The numbers of the words that start with `prefix`: the range [from, to). */
  prefixRange(prefix: string): [number, number] {
    const node = this.descend(prefix);
    if (node === -1) return [0, 0];
    return [this.before[node]!, this.before[this.end[node]!]!];
  }

  /**
   * Visits, in word order, every word with a prefix within `maxEdits` of `typed`, with the fewest
   * edits any of its prefixes needs. The first character must match as typed (people rarely
   * mistype the first letter, and it confines the walk to one letter's words; Elasticsearch's
   * completion suggester has the same `prefix_length: 1`).
   */
  fuzzy(typed: string, maxEdits: number, visit: WordVisitor): void {
    if (maxEdits <= 0) {
      const [from, to] = this.prefixRange(typed);
      for (let w = from; w < to; w++) visit(w, 0);
      return;
    }
    const n = typed.length;
    const t = new Int32Array(n);
    for (let j = 0; j < n; j++) t[j] = typed.charCodeAt(j);
    let rows = this.rows;
    if (rows.length === 0 || rows[0]!.length !== n + 1) rows = this.rows = [];
    // rows[d]: the row of the node at depth d on the current path; best[d] the least last cell of
    // rows 0..d; low[d] the least cell of row d; at[d] the character of the node at depth d.
    const depthCap = this.maxDepth + 1;
    const best = new Int32Array(depthCap);
    const low = new Int32Array(depthCap);
    const at = new Int32Array(depthCap);
    const row0 = (rows[0] ??= new Int32Array(n + 1));
    for (let j = 0; j <= n; j++) row0[j] = j;
    best[0] = n;
    low[0] = 0;
    if (n === 0) return;
    const anchor = this.descend(typed.slice(0, 1));
    if (anchor === -1) return;
    const chars = this.chars;
    const depth = this.depth;
    const end = this.end;
    const before = this.before;
    const terminal = this.terminal;
    let i = anchor;
    const stop = end[anchor]!;
    while (i < stop) {
      const d = depth[i]!;
      const c = chars[i]!;
      at[d] = c;
      const row = (rows[d] ??= new Int32Array(n + 1));
      const up = rows[d - 1]!;
      const upper = d > 1 ? rows[d - 2]! : up;
      const previousChar = d > 1 ? at[d - 1]! : -1;
      row[0] = d;
      let rowMin = d;
      for (let j = 1; j <= n; j++) {
        const tj = t[j - 1]!;
        let v = up[j]! + 1;
        const left = row[j - 1]! + 1;
        if (left < v) v = left;
        const diagonal = up[j - 1]! + (c === tj ? 0 : 1);
        if (diagonal < v) v = diagonal;
        if (j > 1 && previousChar === tj && c === t[j - 2]! && d > 1) {
          const swap = upper[j - 2]! + 1;
          if (swap < v) v = swap;
        }
        row[j] = v;
        if (v < rowMin) rowMin = v;
      }
      const last = row[n]!;
      const b = best[d - 1]! < last ? best[d - 1]! : last;
      best[d] = b;
      low[d] = rowMin;
      // Every cell further down is at least this (a swap reaches back one more row, at a cost of 1).
      const floor = Math.min(rowMin, low[d - 1]! + 1);
      if (floor > maxEdits && b > maxEdits) {
        // Nothing below this branch can come back within the budget.
        i = end[i]!;
        continue;
      }
      if (b <= maxEdits && floor >= b) {
        // Every word below this branch matches, and none better: take them all at once.
        const to = before[end[i]!]!;
        for (let w = before[i]!; w < to; w++) visit(w, b);
        i = end[i]!;
        continue;
      }
      if (terminal[i] === 1 && b <= maxEdits) visit(before[i]!, b);
      i++;
    }
  }
}

function commonPrefix(a: string, b: string): number {
  const limit = Math.min(a.length, b.length);
  let i = 0;
  while (i < limit && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}
