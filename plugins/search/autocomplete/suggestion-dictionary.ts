/**
 * A set of suggestions of one source, searchable by a typed prefix: what every source (titles,
 * categories, phrases, past queries, graph entities, image tags) keeps. Entries are added, counted
 * and removed as the data changes; the sorted word list the matcher walks is rebuilt on the first
 * query after a change.
 */
import { normaliseSuggestion, type PrefixQuery } from './normalize.js';
import { PrefixTrie } from './prefix-matcher.js';

export interface SuggestionEntry {
  text: string;
  /** How often it occurs: documents with the value, searches made, occurrences of the phrase. */
  count: number;
  /** Ranks entries of equal match and count; a query's recency, for example. Default 0, at most 1. */
  boost?: number;
  docId?: string;
  payload?: Record<string, unknown>;
}

/** How well an entry matched, best first: the whole query as its start, every word, or the last word alone. */
export type MatchKind = 'start' | 'words' | 'prefix';

export interface DictionaryMatch {
  entry: SuggestionEntry;
  /** The entry's text, normalised: suggestions with the same one are the same suggestion. */
  norm: string;
  kind: MatchKind;
  /** Edits the last word needed (0: an exact prefix). */
  edits: number;
}

interface Stored {
  entry: SuggestionEntry;
  norm: string;
  words: readonly string[];
  /** The last match() that took this entry: each entry is taken once per query without a set. */
  taken: number;
}

/** Past this many candidates a query stops gathering (one-letter prefixes over 100k titles). */
const maxCandidates = 20_000;

export class SuggestionDictionary {
  private readonly entries = new Map<string, Stored>();
  private readonly byWord = new Map<string, Set<Stored>>();
  /** The words as a trie, with each word's entries by word number; rebuilt after a word comes or goes. */
  private vocabulary: { trie: PrefixTrie; stored: Array<Set<Stored>> } | undefined;
  private queries = 0;

  get size(): number {
    return this.entries.size;
  }

  get(key: string): SuggestionEntry | undefined {
    return this.entries.get(key)?.entry;
  }

  /** Adds or replaces the entry under `key` (a document id, a field value, a normalised phrase). */
  set(key: string, entry: SuggestionEntry): void {
    const existing = this.entries.get(key);
    const norm = normaliseSuggestion(entry.text);
    if (existing && existing.norm === norm) {
      existing.entry = entry;
      return;
    }
    if (existing) this.remove(key);
    if (norm === '') return;
    const words = [...new Set(norm.split(' '))];
    const stored: Stored = { entry, norm, words, taken: 0 };
    this.entries.set(key, stored);
    for (const w of words) {
      let holders = this.byWord.get(w);
      if (!holders) {
        this.byWord.set(w, (holders = new Set()));
        this.vocabulary = undefined;
      }
      holders.add(stored);
    }
  }

  remove(key: string): boolean {
    const existing = this.entries.get(key);
    if (!existing) return false;
    this.entries.delete(key);
    for (const w of existing.words) {
      const holders = this.byWord.get(w);
      if (!holders) continue;
      holders.delete(existing);
      if (holders.size === 0) {
        this.byWord.delete(w);
        this.vocabulary = undefined;
      }
    }
    return true;
  }

  clear(): void {
    this.entries.clear();
    this.byWord.clear();
    this.vocabulary = undefined;
  }

  *all(): IterableIterator<[string, SuggestionEntry]> {
    for (const [key, s] of this.entries) yield [key, s.entry];
  }

  private words(): { trie: PrefixTrie; stored: Array<Set<Stored>> } {
    if (!this.vocabulary) {
      const sorted = [...this.byWord.keys()].sort();
      this.vocabulary = { trie: new PrefixTrie(sorted), stored: sorted.map((w) => this.byWord.get(w)!) };
    }
    return this.vocabulary;
  }

  /**
   * The entries `query` matches: one with a word starting with the prefix (within its edits), and
   * how well the rest of the query fits it. Each entry once, with its best match.
   */
  match(query: PrefixQuery): DictionaryMatch[] {
    const { trie, stored: holders } = this.words();
    // Word numbers by edits, each in word order: fewest edits first, so that a cut-off keeps the
    // closest words (and, since each entry is taken at its first word, with its fewest edits).
    const byEdits: number[][] = [[], [], []];
    for (let e = byEdits.length; e <= query.maxEdits; e++) byEdits.push([]);
    trie.fuzzy(query.prefix, query.maxEdits, (word, edits) => void byEdits[edits]!.push(word));
    const found: DictionaryMatch[] = [];
    const taken = ++this.queries;
    const start = query.context.length === 0 ? '' : `${query.context.join(' ')} `;
    for (let edits = 0; edits < byEdits.length; edits++) {
      for (const w of byEdits[edits]!) {
        const word = trie.words[w]!;
        const whole = start === '' ? word : start + word;
        for (const stored of holders[w]!) {
          if (stored.taken === taken) continue;
          stored.taken = taken;
          found.push({ entry: stored.entry, norm: stored.norm, kind: kindOf(stored, query, whole), edits });
          if (found.length >= maxCandidates) return found;
        }
      }
    }
    return found;
  }
}

/** `start`: the query's context words and the matched word, as the entry would begin with them. */
function kindOf(stored: Stored, query: PrefixQuery, start: string): MatchKind {
  const norm = stored.norm;
  if (norm.startsWith(start) && (norm.length === start.length || norm.charCodeAt(start.length) === 32)) return 'start';
  if (query.context.length === 0) return 'prefix';
  return query.context.every((w) => stored.words.includes(w)) ? 'words' : 'prefix';
}
