/**
 * A set of suggestions of one source, searchable by a typed prefix: what every source (titles,
 * categories, phrases, past queries, graph entities, image tags) keeps. Entries are added, counted
 * and removed as the data changes; the sorted word list the matcher walks is rebuilt on the first
 * query after a change.
 */
import { normaliseSuggestion, suggestionWords, type PrefixQuery } from './normalize.js';
import { forEachWithPrefix, fuzzyPrefixMatches } from './prefix-matcher.js';

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
}

/** Past this many candidates a query stops gathering (one-letter prefixes over 100k titles). */
const maxCandidates = 20_000;

export class SuggestionDictionary {
  private readonly entries = new Map<string, Stored>();
  private readonly byWord = new Map<string, Set<string>>();
  private vocabulary: string[] | undefined = [];

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
    const words = [...new Set(suggestionWords(entry.text))];
    this.entries.set(key, { entry, norm, words });
    for (const w of words) {
      let keys = this.byWord.get(w);
      if (!keys) {
        this.byWord.set(w, (keys = new Set()));
        this.vocabulary = undefined;
      }
      keys.add(key);
    }
  }

  remove(key: string): boolean {
    const existing = this.entries.get(key);
    if (!existing) return false;
    this.entries.delete(key);
    for (const w of existing.words) {
      const keys = this.byWord.get(w);
      if (!keys) continue;
      keys.delete(key);
      if (keys.size === 0) {
        this.byWord.delete(w);
        this.vocabulary = undefined;
      }
    }
    return true;
  }

  clear(): void {
    this.entries.clear();
    this.byWord.clear();
    this.vocabulary = [];
  }

  *all(): IterableIterator<[string, SuggestionEntry]> {
    for (const [key, s] of this.entries) yield [key, s.entry];
  }

  private words(): string[] {
    this.vocabulary ??= [...this.byWord.keys()].sort();
    return this.vocabulary;
  }

  /**
   * The entries `query` matches: one with a word starting with the prefix (within its edits), and
   * how well the rest of the query fits it. Each entry once, with its best match.
   */
  match(query: PrefixQuery): DictionaryMatch[] {
    const vocabulary = this.words();
    const lastWords = query.maxEdits > 0 ? fuzzyPrefixMatches(vocabulary, query.prefix, query.maxEdits) : exact(vocabulary, query.prefix);
    const found = new Map<string, DictionaryMatch>();
    let gathered = 0;
    // Fewest edits first, so that a cut-off keeps the closest words.
    const ordered = [...lastWords].sort((a, b) => a[1] - b[1]);
    for (const [word, edits] of ordered) {
      for (const key of this.byWord.get(word) ?? []) {
        const stored = this.entries.get(key)!;
        const previous = found.get(key);
        if (previous && previous.edits <= edits) continue;
        found.set(key, { entry: stored.entry, norm: stored.norm, kind: kindOf(stored, query, word), edits });
        if (++gathered >= maxCandidates) return [...found.values()];
      }
    }
    return [...found.values()];
  }
}

function exact(vocabulary: readonly string[], prefix: string): Map<string, number> {
  const words = new Map<string, number>();
  forEachWithPrefix(vocabulary, prefix, (w) => void words.set(w, 0));
  return words;
}

function kindOf(stored: Stored, query: PrefixQuery, word: string): MatchKind {
  const start = query.context.length === 0 ? word : `${query.context.join(' ')} ${word}`;
  if (stored.norm === start || stored.norm.startsWith(`${start} `)) return 'start';
  if (query.context.length === 0) return 'prefix';
  return query.context.every((w) => stored.words.includes(w)) ? 'words' : 'prefix';
}
