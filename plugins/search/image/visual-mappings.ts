import type { FieldMapping } from '../index/field-mapping.js';

/**
 * Where visual extraction stores an image document's metadata: one `_visual` object per document
 * (all its image fields together), mapped automatically on every index that has an image field.
 */
export const VISUAL_FIELD = '_visual';

/** The indexed leaves of `_visual`; everything else under it is stored, not indexed. */
export const visualMappings: Readonly<Record<string, FieldMapping>> = {
  /** The OCR text of the document's images, analysed like any text field. */
  '_visual.text': { type: 'text', analyzer: 'standard', index: true },
  /** Colour names, motifs and salient OCR words: exact values, for filters. */
  '_visual.tags': { type: 'keyword', index: true },
  '_visual.colors': { type: 'keyword', index: true },
  '_visual.motifs': { type: 'keyword', index: true },
  /** OCR keywords and colour-motif phrases ("red striped"): what `visual_tag` suggestions come from. */
  '_visual.keywords': { type: 'keyword', index: true },
};

/** Image fields of a mapping: `{type: "keyword", image: true}`. */
export function imageFieldsOf(mappings: Readonly<Record<string, FieldMapping>>): string[] {
  return Object.entries(mappings)
    .filter(([, m]) => m.image === true)
    .map(([path]) => path);
}

/** Paths a client may not map themselves: `_visual` and anything under it. */
export function isVisualPath(path: string): boolean {
  return path === VISUAL_FIELD || path.startsWith(`${VISUAL_FIELD}.`);
}

/**
 * The mappings with `_visual`'s leaves added when some field is an image field (and left as they
 * are otherwise, so an index without images shows no trace of this).
 */
export function withVisualMappings<M extends Record<string, FieldMapping>>(mappings: M): M {
  if (imageFieldsOf(mappings).length === 0) return mappings;
  return { ...mappings, ...visualMappings };
}
