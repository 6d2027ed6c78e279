/**
 * Doc values for sorting: per segment and field, the key each document sorts by, so a sort reads
 * no stored document (or reads each once). Segments are immutable, so a column lives as long as
 * its segment's data and is never updated.
 */
import type { Deadline } from './deadline.js';
import type { KeywordField, SegmentData } from '../index/segment.js';
import { has, type Bitset } from '../index/bitset.js';

/**
 * Per document, the index in the keyword dictionary of its smallest and largest value (-1 for
 * none). Built on first use from the postings of each value (values are sorted, so the first seen
 * is the smallest).
 */
const keywordColumns = new WeakMap<KeywordField, { min: Int32Array; max: Int32Array }>();
export function keywordSortColumn(field: KeywordField, docCount: number): { min: Int32Array; max: Int32Array } {
  let column = keywordColumns.get(field);
  if (!column) {
    const min = new Int32Array(docCount).fill(-1);
    const max = new Int32Array(docCount).fill(-1);
    for (let v = 0; v < field.values.length; v++) {
      for (let p = field.valueStarts[v]!; p < field.valueStarts[v + 1]!; p++) {
        const doc = field.docs[p]!;
        if (min[doc] === -1) min[doc] = v;
        max[doc] = v;
      }
    }
    column = { min, max };
    keywordColumns.set(field, column);
  }
  return column;
}

export type SortKey = string | number | boolean | undefined;

/** Strings longer than this are not kept in a column: those documents are read when sorted. */
export const MAX_COLUMN_STRING = 256;
/** Marks a document whose key is a string too long for the column. */
export const READ_SOURCE: unique symbol = Symbol('read source');

/** A text or unmapped field's keys, read from the stored sources: a document's first value. */
export type SourceColumn = Array<SortKey | typeof READ_SOURCE>;

const sourceColumns = new WeakMap<SegmentData, Map<string, SourceColumn>>();

/** The sort key of a stored value: the first element of an array; objects do not sort. */
export function sortKeyOf(value: unknown): SortKey {
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' || typeof first === 'number' || typeof first === 'boolean' ? first : undefined;
}

/**
 * The column of `field` in a segment, when it is built or worth building: a sort that ranks at
 * least an eighth of the segment reads every live source of it once, and later sorts read none.
 * Smaller sorts read their hits' sources and build nothing (undefined).
 */
export function sourceSortColumn(
  data: SegmentData,
  deleted: Bitset,
  field: string,
  ranked: number,
  read: (ord: number) => unknown,
  deadline?: Deadline,
): SourceColumn | undefined {
  let fields = sourceColumns.get(data);
  const built = fields?.get(field);
  if (built) return built;
  if (ranked * 8 < data.docCount) return undefined;
  const column: SourceColumn = new Array(data.docCount);
  for (let ord = 0; ord < data.docCount; ord++) {
    // Checked often: an abandoned build is not kept, so a timed-out sort leaves nothing half-made.
    if ((ord & 1023) === 1023) deadline?.check();
    if (has(deleted, ord)) continue;
    const key = sortKeyOf(read(ord));
    column[ord] = typeof key === 'string' && key.length > MAX_COLUMN_STRING ? READ_SOURCE : key;
  }
  if (!fields) sourceColumns.set(data, (fields = new Map()));
  fields.set(field, column);
  return column;
}
