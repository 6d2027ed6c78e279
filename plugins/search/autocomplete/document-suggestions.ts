/**
 * The suggestions an index's documents give: titles (`document`), keyword values with their
 * document counts (`category`) and frequent 2-3 word phrases of the text fields (`phrase`). Kept
 * per document, so a rewrite or delete takes back exactly what the document gave.
 *
 * Which fields: `settings.autocomplete.titleField` (default: the first text field named `title`,
 * then `name`), `settings.autocomplete.categoryFields` (default: every keyword field but `id`),
 * and every indexed text field for phrases.
 */
import { englishStopWords } from '../analysis/stop-words.js';
import { valuesAtPath } from '../index/document-validation.js';
import type { IndexRecord } from '../index/index-record.js';
import { normaliseSuggestion, suggestionWords } from './normalize.js';
import { SuggestionDictionary } from './suggestion-dictionary.js';

/** A phrase is suggested once this many documents contain it. */
export const minPhraseDocs = 2;
/** Words read per text field of a document for phrases (a long body's opening says what it is about). */
const phraseWordsPerField = 200;
const maxSuggestionChars = 200;

export interface AutocompleteFields {
  title: string | undefined;
  categories: string[];
  phrases: string[];
}

export function autocompleteFields(record: Pick<IndexRecord, 'mappings' | 'settings'>): AutocompleteFields {
  const settings = (record.settings as { autocomplete?: { titleField?: string; categoryFields?: string[] } }).autocomplete ?? {};
  const mappings = record.mappings;
  // Image fields hold file names, and `_visual.*` (written by visual extraction) has its own
  // `visual_tag`, `motif` and `color` sources, gated by `includeVisualTags`.
  const own = Object.keys(mappings).filter((f) => !f.startsWith('_visual.') && (mappings[f] as { image?: boolean }).image !== true);
  const text = own.filter((f) => mappings[f]!.type === 'text' && mappings[f]!.index);
  const title = settings.titleField ?? ['title', 'name'].find((f) => mappings[f]?.type === 'text');
  const categories = settings.categoryFields ?? own.filter((f) => f !== 'id' && mappings[f]!.type === 'keyword');
  return { title, categories, phrases: text };
}

interface Contribution {
  categories: string[];
  phrases: string[];
}

function strings(source: unknown, path: string): string[] {
  const out: string[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (typeof v === 'string' && v.trim() !== '') out.push(v.trim().slice(0, maxSuggestionChars));
  };
  valuesAtPath(source, path).forEach(walk);
  return out;
}

/** The distinct 2-3 word phrases of `text` that neither start nor end with a stop word or a number. */
export function phrasesOf(text: string, limit = phraseWordsPerField): string[] {
  const found = new Set<string>();
  let budget = limit;
  // Phrases do not cross punctuation: "red, white" is not a phrase.
  for (const clause of text.split(/[.,;:!?()[\]{}"\u2014\u2013|/\\]+/)) {
    const words = suggestionWords(clause).slice(0, budget);
    budget -= words.length;
    const edge = (w: string): boolean => !englishStopWords.has(w) && !/^\p{N}+$/u.test(w) && w.length > 1;
    for (let i = 0; i < words.length; i++) {
      if (!edge(words[i]!)) continue;
      for (const n of [2, 3]) {
        if (i + n > words.length || !edge(words[i + n - 1]!)) continue;
        found.add(words.slice(i, i + n).join(' '));
      }
    }
    if (budget <= 0) break;
  }
  return [...found];
}

export class DocumentSuggestions {
  readonly documents = new SuggestionDictionary();
  readonly categories = new SuggestionDictionary();
  readonly phrases = new SuggestionDictionary();
  private readonly byDoc = new Map<string, Contribution>();
  private readonly categoryCounts = new Map<string, { text: string; field: string; count: number }>();
  private readonly phraseCounts = new Map<string, number>();
  private fields: AutocompleteFields;

  constructor(fields: AutocompleteFields) {
    this.fields = fields;
  }

  get documentCount(): number {
    return this.byDoc.size;
  }

  /** Takes in a document's current version (replacing what an earlier one gave). */
  put(id: string, source: Record<string, unknown>): void {
    this.remove(id);
    const { title, categories, phrases } = this.fields;
    const titleText = title === undefined ? undefined : strings(source, title)[0];
    if (titleText !== undefined) this.documents.set(id, { text: titleText, count: 1, docId: id });
    const contribution: Contribution = { categories: [], phrases: [] };
    for (const field of categories) {
      for (const value of new Set(strings(source, field))) {
        const key = `${field}\u0000${normaliseSuggestion(value)}`;
        if (contribution.categories.includes(key)) continue;
        contribution.categories.push(key);
        const counted = this.categoryCounts.get(key) ?? { text: value, field, count: 0 };
        counted.count++;
        this.categoryCounts.set(key, counted);
        this.categories.set(key, { text: counted.text, count: counted.count, payload: { field } });
      }
    }
    const seen = new Set<string>();
    for (const field of phrases) for (const value of strings(source, field)) for (const p of phrasesOf(value)) seen.add(p);
    for (const phrase of seen) {
      const count = (this.phraseCounts.get(phrase) ?? 0) + 1;
      this.phraseCounts.set(phrase, count);
      if (count >= minPhraseDocs) this.phrases.set(phrase, { text: phrase, count });
    }
    contribution.phrases = [...seen];
    this.byDoc.set(id, contribution);
  }

  /** Takes back what document `id` gave; false when it gave nothing. */
  remove(id: string): boolean {
    this.documents.remove(id);
    const contribution = this.byDoc.get(id);
    if (!contribution) return false;
    this.byDoc.delete(id);
    for (const key of contribution.categories) {
      const counted = this.categoryCounts.get(key)!;
      if (--counted.count === 0) {
        this.categoryCounts.delete(key);
        this.categories.remove(key);
      } else this.categories.set(key, { text: counted.text, count: counted.count, payload: { field: counted.field } });
    }
    for (const phrase of contribution.phrases) {
      const count = this.phraseCounts.get(phrase)! - 1;
      if (count === 0) this.phraseCounts.delete(phrase);
      else this.phraseCounts.set(phrase, count);
      if (count >= minPhraseDocs) this.phrases.set(phrase, { text: phrase, count });
      else this.phrases.remove(phrase);
    }
    return true;
  }
}
