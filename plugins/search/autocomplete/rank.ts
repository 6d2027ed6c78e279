/**
 * One ranking over every source's matches. The match decides first (exact prefix matches always
 * rank above typo'd ones; among them, the whole query as the suggestion's start, then every word
 * of the query in it, then the last word alone), then popularity (the count, damped), then a
 * source's own boost (a query's recency), then a small preference by type. Equal scores fall back
 * to the shorter text, then alphabetical order, so an answer is deterministic. The same text from
 * two sources is suggested once, with the better score.
 */
import type { DictionaryMatch, MatchKind } from './suggestion-dictionary.js';
import type { SuggestionType } from './suggestion-source.js';

export interface AutocompleteSuggestion {
  text: string;
  type: SuggestionType;
  score: number;
  count: number;
  docId?: string;
  payload?: Record<string, unknown>;
}

export interface RankedSource {
  type: SuggestionType;
  matches: readonly DictionaryMatch[];
}

const kindScore: Record<MatchKind, number> = { start: 3, words: 2, prefix: 1 };
/** Past searches first, then named things (entities, titles), then values, then phrases. */
const typeScore: Record<SuggestionType, number> = {
  query: 0.25,
  entity: 0.22,
  document: 0.2,
  category: 0.15,
  visual_tag: 0.1,
  motif: 0.1,
  color: 0.1,
  phrase: 0.05,
};

export function scoreMatch(type: SuggestionType, match: DictionaryMatch): number {
  // Typo'd matches stay below 1 and every exact one at 1 or above: the rest adds at most 0.75.
  const base = match.edits === 0 ? kindScore[match.kind] : 0.2 - 0.1 * match.edits + (match.kind === 'prefix' ? 0 : 0.05);
  const count = Math.max(0, match.entry.count);
  const popularity = Math.log1p(count) / (Math.log1p(count) + 3);
  return base + 0.3 * popularity + 0.2 * Math.min(1, Math.max(0, match.entry.boost ?? 0)) + typeScore[type];
}

function before(a: AutocompleteSuggestion, b: AutocompleteSuggestion): boolean {
  if (a.score !== b.score) return a.score > b.score;
  if (a.text.length !== b.text.length) return a.text.length < b.text.length;
  return a.text < b.text;
}

/**
 * Keeps the best `limit` distinct suggestions in order (one per normalised text): one comparison
 * for most candidates, an insertion for the rest.
 */
class TopList {
  readonly items: AutocompleteSuggestion[] = [];
  private readonly keys: string[] = [];
  constructor(private readonly limit: number) {}
  /** Whether a suggestion of this score and text could enter (cheap, before it is built). */
  admits(score: number, text: string): boolean {
    const last = this.items[this.items.length - 1];
    if (this.items.length < this.limit || !last) return true;
    return score > last.score || (score === last.score && (text.length < last.text.length || (text.length === last.text.length && text < last.text)));
  }

  offer(s: AutocompleteSuggestion, key: string): void {
    const items = this.items;
    if (items.length >= this.limit && !before(s, items[items.length - 1]!)) return;
    const same = this.keys.indexOf(key);
    if (same >= 0) {
      if (!before(s, items[same]!)) return;
      items.splice(same, 1);
      this.keys.splice(same, 1);
    }
    let i = items.length;
    while (i > 0 && before(s, items[i - 1]!)) i--;
    items.splice(i, 0, s);
    this.keys.splice(i, 0, key);
    if (items.length > this.limit) {
      items.pop();
      this.keys.pop();
    }
  }
}

export function rankSuggestions(sources: readonly RankedSource[], size: number): AutocompleteSuggestion[] {
  const top = new TopList(size);
  for (const { type, matches } of sources) {
    for (const match of matches) {
      const { entry } = match;
      const score = round(scoreMatch(type, match));
      if (!top.admits(score, entry.text)) continue;
      const s: AutocompleteSuggestion = { text: entry.text, type, score, count: entry.count };
      if (entry.docId !== undefined) s.docId = entry.docId;
      if (entry.payload !== undefined) s.payload = entry.payload;
      top.offer(s, match.norm);
    }
  }
  return top.items;
}

function round(n: number): number {
  return Math.round(n * 10_000) / 10_000;
}
