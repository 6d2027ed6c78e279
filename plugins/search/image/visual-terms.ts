import { has } from '../index/bitset.js';
import type { SearchIndex } from '../index/search-index.js';

export type VisualTermType = 'visual_tag' | 'motif' | 'color';

/** A visual value of an index with the number of live documents holding it and one of them. */
export interface VisualTerm {
  text: string;
  type: VisualTermType;
  count: number;
  docId: string;
}

const sources: ReadonlyArray<{ field: string; type: VisualTermType }> = [
  { field: '_visual.colors', type: 'color' },
  { field: '_visual.motifs', type: 'motif' },
  { field: '_visual.keywords', type: 'visual_tag' },
];

/**
 * The index's visual terms (colours, motifs, and OCR keywords and colour-motif phrases), each with
 * the number of live documents that hold it, read from the keyword dictionaries of the segments
 * (no stored document is read). Sorted by count, then text; `prefix` matches case-insensitively
 * the start of the term or of any of its words ("str" finds "red striped").
 */
export function visualTerms(index: SearchIndex, options: { prefix?: string; types?: readonly VisualTermType[]; limit?: number } = {}): VisualTerm[] {
  const prefix = options.prefix?.toLowerCase().trim() ?? '';
  const wanted = sources.filter((s) => options.types === undefined || options.types.includes(s.type));
  const found = new Map<string, VisualTerm>();
  for (const seg of index.segments) {
    for (const { field, type } of wanted) {
      const dict = seg.data.keyword[field];
      if (!dict) continue;
      dict.values.forEach((value, i) => {
        if (
          prefix !== '' &&
          !value
            .toLowerCase()
            .split(/\s+/)
            .some((w, k, all) => w.startsWith(prefix) || all.slice(k).join(' ').startsWith(prefix))
        )
          return;
        let count = 0;
        let docId: string | undefined;
        for (let p = dict.valueStarts[i]!; p < dict.valueStarts[i + 1]!; p++) {
          const ord = dict.docs[p]!;
          if (has(seg.deleted, ord)) continue;
          count++;
          docId ??= seg.data.ids[ord];
        }
        if (count === 0) return;
        const key = `${type}\u0000${value}`;
        const term = found.get(key);
        if (term) term.count += count;
        else found.set(key, { text: value, type, count, docId: docId! });
      });
    }
  }
  const terms = [...found.values()].sort((a, b) => b.count - a.count || a.text.localeCompare(b.text) || a.type.localeCompare(b.type));
  return options.limit === undefined ? terms : terms.slice(0, options.limit);
}
