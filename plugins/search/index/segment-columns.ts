import type { FilterColumns } from '../query/filter.js';
import type { LoadedSegment } from './loaded-segment.js';
import { lookup } from './segment.js';

const empty = new Uint32Array(0);

/** A segment's columns as the filter evaluator reads them. */
export function segmentColumns(seg: LoadedSegment): FilterColumns {
  const data = seg.data;
  return {
    keyword(field) {
      const k = data.keyword[field];
      if (!k) return undefined;
      return {
        postings(value) {
          const i = lookup(k.values, value);
          return i === -1 ? empty : k.docs.subarray(k.valueStarts[i]!, k.valueStarts[i + 1]!);
        },
      };
    },
    numeric: (field) => data.numeric[field],
    boolean: (field) => data.boolean[field],
    ids: () => data.ids,
    exists: (field) => data.exists[field],
  };
}
