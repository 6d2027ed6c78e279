/**
 * Finds the words of a vocabulary that a typed prefix could be the start of, with typos: a word
 * matches when some prefix of it is within `maxEdits` Damerau edits of the typed prefix (insertion,
 * deletion, substitution, or a swap of two adjacent letters: optimal string alignment).
 *
 * The sorted vocabulary is walked as an implicit trie: consecutive words share their dynamic
 * programming rows up to their common prefix, and a branch whose row has no cell within the budget
 * is skipped whole with a binary search to the first word outside it. An exact prefix (no edits
 * allowed) is one binary search.
 */

/** The first index in `sorted` at or after which every word is >= `key`. */
function lowerBound(sorted: readonly string[], key: string, from = 0): number {
  let lo = from;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The first index after the words that start with `prefix` (from `from`, which is inside or before them). */
function endOfPrefix(sorted: readonly string[], prefix: string, from: number): number {
  return lowerBound(sorted, `${prefix}\uffff`, from);
}

/** Visits each word of `sorted` that starts with `prefix`, in order, until `visit` answers false. */
export function forEachWithPrefix(sorted: readonly string[], prefix: string, visit: (word: string) => boolean | void): void {
  for (let i = lowerBound(sorted, prefix); i < sorted.length && sorted[i]!.startsWith(prefix); i++) {
    if (visit(sorted[i]!) === false) return;
  }
}

/**
 * Every word of `sorted` (ascending, distinct) with a prefix within `maxEdits` of `typed`, with the
 * fewest edits any of its prefixes needs. Words are compared by UTF-16 code unit, as they sort.
 * The first `exactChars` characters must match as typed (default 1: people rarely mistype the first
 * letter, and it confines the walk to one letter's words; Elasticsearch's completion suggester
 * has the same `prefix_length: 1`).
 */
export function fuzzyPrefixMatches(sorted: readonly string[], typed: string, maxEdits: number, exactChars = 1): Map<string, number> {
  const found = new Map<string, number>();
  if (maxEdits <= 0) {
    forEachWithPrefix(sorted, typed, (w) => void found.set(w, 0));
    return found;
  }
  const n = typed.length;
  // rows[d] is the row for the first d characters of the current word; best[d] the least row[n]
  // up to d; low[d] the least cell of row d.
  const rows: Int32Array[] = [Int32Array.from({ length: n + 1 }, (_, j) => j)];
  const best: number[] = [n];
  const low: number[] = [0];
  let previous = '';
  // How many rows of `previous` are valid (a walk that jumped stops filling them).
  let valid = 0;
  const anchor = typed.slice(0, Math.min(exactChars, typed.length));
  let i = lowerBound(sorted, anchor);
  const stop = anchor === '' ? sorted.length : endOfPrefix(sorted, anchor, i);
  while (i < stop) {
    const word = sorted[i]!;
    let shared = 0;
    const limit = Math.min(valid, word.length, previous.length);
    while (shared < limit && word.charCodeAt(shared) === previous.charCodeAt(shared)) shared++;
    let jumped = false;
    for (let d = shared + 1; d <= word.length; d++) {
      const row = (rows[d] ??= new Int32Array(n + 1));
      const up = rows[d - 1]!;
      const c = word.charCodeAt(d - 1);
      row[0] = d;
      let rowMin = d;
      for (let j = 1; j <= n; j++) {
        const t = typed.charCodeAt(j - 1);
        let v = Math.min(up[j]! + 1, row[j - 1]! + 1, up[j - 1]! + (c === t ? 0 : 1));
        if (d > 1 && j > 1 && c === typed.charCodeAt(j - 2) && word.charCodeAt(d - 2) === t) v = Math.min(v, rows[d - 2]![j - 2]! + 1);
        row[j] = v;
        if (v < rowMin) rowMin = v;
      }
      best[d] = Math.min(best[d - 1]!, row[n]!);
      low[d] = rowMin;
      // Every cell further down is at least this (a swap reaches back one more row, at a cost of 1).
      const floor = Math.min(rowMin, low[d - 1]! + 1);
      if (floor > maxEdits && best[d]! > maxEdits) {
        // Nothing below this branch can come back within the budget: skip every word that shares it.
        i = endOfPrefix(sorted, word.slice(0, d), i + 1);
        jumped = true;
      } else if (best[d]! <= maxEdits && floor >= best[d]!) {
        // Every word below this branch matches, and none better: take them all at once.
        const prefix = word.slice(0, d);
        const end = endOfPrefix(sorted, prefix, i + 1);
        for (let w = i; w < end; w++) found.set(sorted[w]!, best[d]!);
        i = end;
        jumped = true;
      }
      if (jumped) {
        previous = word;
        valid = d - 1;
        break;
      }
    }
    if (jumped) continue;
    if (best[word.length]! <= maxEdits) found.set(word, best[word.length]!);
    previous = word;
    valid = word.length;
    i++;
  }
  return found;
}
