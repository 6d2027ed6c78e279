/** Field types and mappings as stored (mappings.ts parses and merges them). */

export const fieldTypes = ['text', 'keyword', 'number', 'boolean', 'date', 'geo_point'] as const;
export type FieldType = (typeof fieldTypes)[number];

/** A mapping as stored: `index` is explicit, and a text field always names its analyzer. */
export interface FieldMapping {
  type: FieldType;
  /** Text fields only. */
  analyzer?: string;
  index: boolean;
  /** Keyword fields only: the value references an image, enriched at ingest (image/visual-extraction.ts). */
  image?: true;
}

/** A mapping as written by a client: `analyzer` and `index` may be left out. */
export interface FieldMappingInput {
  type: FieldType;
  analyzer?: string;
  index?: boolean;
  image?: boolean;
}

export type Mappings = Record<string, FieldMapping>;
