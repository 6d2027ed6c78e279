/**
 * Visual autocomplete: an index's image tags, motifs and colours (from `_visual`, written by visual
 * extraction) offered as `visual_tag`, `motif` and `color` suggestions, gated by `includeVisualTags`.
 * The dictionaries are built from the segments' keyword dictionaries and kept per segment list: a
 * write replaces the index's array of segments, so the next request builds them anew.
 */
import type { AutocompleteService } from '../autocomplete/autocomplete-service.js';
import { SuggestionDictionary } from '../autocomplete/suggestion-dictionary.js';
import type { SearchEngine } from '../index/search-engine.js';
import { visualTerms, type VisualTermType } from './visual-terms.js';

export function registerVisualSuggestions(autocomplete: AutocompleteService, engine: () => SearchEngine): void {
  const built = new WeakMap<object, Map<VisualTermType, SuggestionDictionary>>();
  for (const type of ['visual_tag', 'motif', 'color'] as const) {
    autocomplete.register({
      type,
      flag: 'includeVisualTags',
      dictionary: ({ tenant, index }) => {
        if (!engine().has(tenant, index)) return undefined;
        const found = engine().get(tenant, index);
        let byType = built.get(found.segments);
        if (!byType) built.set(found.segments, (byType = new Map()));
        let dictionary = byType.get(type);
        if (!dictionary) {
          dictionary = new SuggestionDictionary();
          for (const term of visualTerms(found, { types: [type] })) dictionary.set(term.text, { text: term.text, count: term.count, docId: term.docId });
          byType.set(type, dictionary);
        }
        return dictionary.size > 0 ? dictionary : undefined;
      },
    });
  }
}
