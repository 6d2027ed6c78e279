/**
 * The `query` suggestions of an index: the searches made on it that found something, counted,
 * with when each was last made. Persisted in the search plugin's store keyed by the index's uuid
 * (a dropped index takes its log with it; a new index of the same name starts empty) and bounded:
 * past `maxQueries` the least valuable query (fewest uses, weighed by age) is forgotten.
 */
import type { Database } from 'lmdb';
import type { StoreNamespace } from 'tessera-runtime/plugin';
import { normaliseSuggestion } from './normalize.js';
import { SuggestionDictionary } from './suggestion-dictionary.js';

export interface LoggedQuery {
  text: string;
  count: number;
  /** Epoch milliseconds of the last search. */
  lastAt: number;
}

/** A query's weight halves every 30 days it is not searched again. */
const halfLifeMs = 30 * 24 * 3600 * 1000;
const maxQueryChars = 200;

export function recency(lastAt: number, now: number): number {
  return Math.pow(0.5, Math.max(0, now - lastAt) / halfLifeMs);
}

export class QueryLog {
  private readonly db: Database<LoggedQuery, [string, string]>;
  private readonly loaded = new Map<string, SuggestionDictionary>();
  private readonly maxQueries: number;
  private readonly now: () => number;

  constructor(store: StoreNamespace, options: { maxQueries: number; now?: () => number }) {
    this.db = store.db<LoggedQuery, [string, string]>('autocomplete-queries');
    this.maxQueries = options.maxQueries;
    this.now = options.now ?? Date.now;
  }

  /** The index's logged queries as suggestions (read from the store on first use). */
  dictionary(uuid: string): SuggestionDictionary {
    let dictionary = this.loaded.get(uuid);
    if (dictionary) return dictionary;
    dictionary = new SuggestionDictionary();
    const now = this.now();
    for (const { key, value } of this.db.getRange({ start: [uuid, ''], end: [uuid, '\uffff'] })) {
      dictionary.set(key[1], { text: value.text, count: value.count, boost: recency(value.lastAt, now) });
    }
    this.loaded.set(uuid, dictionary);
    return dictionary;
  }

  /** Counts a search that found something; blank and over-long queries are not suggestions. */
  async record(uuid: string, q: string): Promise<void> {
    const text = q.trim().replace(/\s+/g, ' ');
    const norm = normaliseSuggestion(text);
    if (norm === '' || text.length > maxQueryChars) return;
    const dictionary = this.dictionary(uuid);
    const now = this.now();
    const previous = this.db.get([uuid, norm]);
    const entry: LoggedQuery = { text, count: (previous?.count ?? 0) + 1, lastAt: now };
    dictionary.set(norm, { text, count: entry.count, boost: 1 });
    await this.db.put([uuid, norm], entry);
    if (!previous && dictionary.size > this.maxQueries) await this.evict(uuid, dictionary, now);
  }

  private async evict(uuid: string, dictionary: SuggestionDictionary, now: number): Promise<void> {
    let worst: { key: string; value: number } | undefined;
    for (const { key, value } of this.db.getRange({ start: [uuid, ''], end: [uuid, '\uffff'] })) {
      const weight = value.count * recency(value.lastAt, now);
      if (!worst || weight < worst.value) worst = { key: key[1], value: weight };
    }
    if (!worst) return;
    dictionary.remove(worst.key);
    await this.db.remove([uuid, worst.key]);
  }

  /** Forgets the queries of every index not in `live` (a dropped index's; one dropped while the process was down). */
  async dropExcept(live: ReadonlySet<string>, dropped?: string): Promise<void> {
    if (dropped !== undefined) this.loaded.delete(dropped);
    const stale: Array<[string, string]> = [];
    for (const key of this.db.getKeys()) if (!live.has(key[0])) stale.push(key);
    await Promise.all(stale.map((key) => this.db.remove(key)));
  }
}
