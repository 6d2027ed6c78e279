import { describe, expect, it } from 'vitest';
import { getAnalyzer } from '../../../plugins/search/analysis/analyzer.js';
import { add, emptySet } from '../../../plugins/search/index/bitset.js';
import { buildSegment, type IndexableDocument } from '../../../plugins/search/index/segment.js';
import { mergeSegmentData } from '../../../plugins/search/index/segment-merge.js';

const analyzers = { title: getAnalyzer('english') };
const doc = (id: string, title: string, tag: string, year: number, flag: boolean): IndexableDocument => ({
  id,
  fields: {
    title: { type: 'text', values: [title] },
    tag: { type: 'keyword', values: [tag] },
    year: { type: 'number', values: [year] },
    flag: { type: 'boolean', values: [flag] },
  },
});

describe('mergeSegmentData', () => {
  it('equals a segment built from the surviving documents, in the same order', () => {
    const a = [doc('a1', 'the white whale', 'x', 1, true), doc('a2', 'a whale of a time', 'y', 2, false), doc('a3', 'sea and sky', 'x', 3, true)];
    const b = [doc('b1', 'white sails at sea', 'z', 4, false), doc('b2', 'only gulls', 'y', 5, true)];
    const segA = buildSegment(a, analyzers);
    const segB = buildSegment(b, analyzers);
    const deletedA = emptySet(3);
    add(deletedA, 1);
    const deletedB = emptySet(2);
    add(deletedB, 1);
    const merged = mergeSegmentData([
      { data: segA, deleted: deletedA },
      { data: segB, deleted: deletedB },
    ]);
    const expected = buildSegment([a[0]!, a[2]!, b[0]!], analyzers);
    // "time" and "gull" only occurred in deleted documents, so they are gone from the dictionary.
    expect(merged).toEqual(expected);
    expect(merged.text.title!.terms).not.toContain('time');
  });

  it('merges to an empty segment when every document was deleted', () => {
    const seg = buildSegment([doc('a', 'one', 'x', 1, true)], analyzers);
    const deleted = emptySet(1);
    add(deleted, 0);
    const merged = mergeSegmentData([{ data: seg, deleted }]);
    expect(merged.docCount).toBe(0);
    expect(merged.text.title!.terms).toEqual([]);
  });

  it('carries vectors through a merge, dropping deleted rows', () => {
    const withVector = (id: string, v: number[]): IndexableDocument => ({ ...doc(id, 'text', 'x', 1, true), vector: v });
    const a = [withVector('a1', [1, 0]), doc('a2', 'no vector here', 'y', 2, false), withVector('a3', [0, 1])];
    const b = [withVector('b1', [0.5, 0.5])];
    const deleted = emptySet(3);
    add(deleted, 0);
    const merged = mergeSegmentData([
      { data: buildSegment(a, analyzers), deleted },
      { data: buildSegment(b, analyzers), deleted: emptySet(1) },
    ]);
    expect(merged).toEqual(buildSegment([a[1]!, a[2]!, b[0]!], analyzers));
    expect([...merged.vectors!.data]).toEqual([0, 0, 0, 1, 0.5, 0.5]);
  });
});
