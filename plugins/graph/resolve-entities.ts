/**
 * Entity resolution: which entities a query names. Tiers, each tried only when the one before
 * found nothing, and each ranked:
 *
 * 1. exact: the whole query, or runs of its words (longest first, each word used once), equal a
 *    name or alias after case and diacritic folding; a multi-word query can name several entities.
 *    A run covering more of the query scores higher (1.0 for the whole query).
 * 2. prefix: names and aliases that start with the query, or hold every query word with the last
 *    one as a prefix (the autocomplete matcher); a closer length scores higher.
 * 3. fuzzy: the same with the last word within Damerau edits (one from 4 characters, two from 8).
 */
import { parsePrefixQuery, suggestionWords, type DictionaryMatch } from '../search/index.js';
import type { IndexGraph } from './index-graph.js';

export interface Resolved {
  id: string;
  score: number;
  how: 'exact' | 'prefix' | 'fuzzy';
}

export function resolveEntities(graph: IndexGraph, query: string): Resolved[] {
  const words = suggestionWords(query);
  if (words.length === 0) return [];
  const found = new Map<string, Resolved>();
  const offer = (id: string, score: number, how: Resolved['how']): void => {
    const previous = found.get(id);
    if (!previous || previous.score < score) found.set(id, { id, score, how });
  };

  const whole = graph.exact.get(words.join(' '));
  for (const id of whole ?? []) offer(id, 1, 'exact');
  if (!whole) {
    const used = new Array<boolean>(words.length).fill(false);
    for (let length = Math.min(graph.longestName, words.length); length >= 1; length--) {
      for (let start = 0; start + length <= words.length; start++) {
        if (used.slice(start, start + length).some(Boolean)) continue;
        // A lone one-letter word ("a", "i") names nothing worth resolving.
        if (length === 1 && words[start]!.length < 2) continue;
        const ids = graph.exact.get(words.slice(start, start + length).join(' '));
        if (!ids) continue;
        for (let i = start; i < start + length; i++) used[i] = true;
        for (const id of ids) offer(id, 0.6 + (0.35 * length) / words.length, 'exact');
      }
    }
  }
  if (found.size > 0) return ranked(found);

  const prefixQuery = parsePrefixQuery(query)!;
  const matches = graph.names.match(prefixQuery);
  const closeness = (m: DictionaryMatch): number => Math.min(1, prefixQuery.text.length / Math.max(1, m.norm.length));
  const kindWeight = { start: 1, words: 0.9, prefix: 0.8 } as const;
  for (const m of matches) if (m.edits === 0) offer(idOf(m), 0.3 + 0.25 * kindWeight[m.kind] * closeness(m), 'prefix');
  if (found.size > 0) return ranked(found);
  for (const m of matches) if (m.edits > 0 && m.kind !== 'prefix') offer(idOf(m), (0.25 - 0.08 * m.edits) * (0.5 + 0.5 * closeness(m)), 'fuzzy');
  return ranked(found);
}

function idOf(m: DictionaryMatch): string {
  return m.entry.payload!['entityId'] as string;
}

function ranked(found: Map<string, Resolved>): Resolved[] {
  return [...found.values()].sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
