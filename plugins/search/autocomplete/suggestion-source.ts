/**
 * The extension point of autocomplete: a source is a type of suggestion and, per index, a
 * dictionary of entries of that type. The search plugin registers the sources it derives from
 * documents and past queries; other plugins register theirs through `AUTOCOMPLETE_SERVICE`
 * (the graph plugin's entities; image metadata's visual tags, motifs and colours).
 *
 * A visual source plugs in with a few lines, keeping one dictionary per index up to date:
 *
 * ```ts
 * const tags = new Map<string, SuggestionDictionary>(); // `${tenant}\0${index}` -> dictionary
 * autocomplete.register({
 *   type: 'visual_tag',
 *   flag: 'includeVisualTags',
 *   dictionary: ({ tenant, index }) => tags.get(`${tenant}\0${index}`),
 * });
 * // on extraction: dictionary.set(`${docId}:${tag}`, { text: tag, count: docsWithTag, docId });
 * ```
 */
import type { SuggestionDictionary } from './suggestion-dictionary.js';

export const suggestionTypes = ['query', 'phrase', 'category', 'document', 'visual_tag', 'motif', 'color', 'entity'] as const;
export type SuggestionType = (typeof suggestionTypes)[number];

/** The request flags that turn sources off (each default true). */
export type IncludeFlag = 'includeCategories' | 'includeDocuments' | 'includeVisualTags' | 'includeGraphEntities';

/** An index as sources see it: its tenant, its name, and its uuid (stable until it is dropped). */
export interface IndexScope {
  tenant: string;
  index: string;
  uuid: string;
}

export interface SuggestionSource {
  type: SuggestionType;
  /** The flag that, false, removes this source's type from an answer; none: always asked. */
  flag?: IncludeFlag;
  /** The index's entries of this type, or undefined when it has none; may build them first. */
  dictionary(scope: IndexScope): SuggestionDictionary | undefined | Promise<SuggestionDictionary | undefined>;
}

/** Which flag gates each built-in type; a registered source names its own. */
export const defaultFlags: Readonly<Partial<Record<SuggestionType, IncludeFlag>>> = {
  category: 'includeCategories',
  document: 'includeDocuments',
  visual_tag: 'includeVisualTags',
  motif: 'includeVisualTags',
  color: 'includeVisualTags',
  entity: 'includeGraphEntities',
};
