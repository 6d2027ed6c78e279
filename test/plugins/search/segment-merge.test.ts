import { describe, expect, it } from 'vitest';
import { getAnalyzer } from '../../../plugins/search/analysis/analyzer.js';
import { add, emptySet } from '../../../plugins/search/index/bitset.js';
import { buildSegment, type IndexableDocument } from '../../../plugins/search/index/segment.js';
import type { LoadedSegment } from '../../../plugins/search/index/loaded-segment.js';
import { ABSORB_RATIO, absorbSelection, mergeSegmentData, mergeSelection } from '../../../plugins/search/index/segment-merge.js';

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

describe('the merge policy for indexes with HNSW graphs', () => {
  type Status = 'building' | 'ready' | 'failed';
  /** Only what the policy reads: sizes, deletions and the graph's state (none: a flat index). */
  const seg = (id: number, docs: number, graph?: Status, deleted = 0): LoadedSegment =>
    ({ id, data: { docCount: docs }, deletedCount: deleted, ...(graph ? { graph: { status: graph } } : {}) }) as unknown as LoadedSegment;
  const ids = (selected: LoadedSegment[] | undefined): number[] | undefined => selected?.map((s) => s.id).sort((a, b) => a - b);

  it('merges everything into the largest segment once its graph is ready, where a flat index keeps up to maxSegments', () => {
    const graphs = Array.from({ length: 8 }, (_, i) => seg(i, 25_000, 'ready'));
    expect(ids(mergeSelection(graphs, 8, 4))).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    const flat = Array.from({ length: 8 }, (_, i) => seg(i, 25_000));
    expect(mergeSelection(flat, 8, 4)).toBeUndefined();
    // One segment: nothing to merge either way.
    expect(mergeSelection([seg(0, 200_000, 'ready')], 8, 4)).toBeUndefined();
  });

  it('waits while the largest graph is still building, so no build is thrown away', () => {
    const segments = [seg(0, 100_000, 'building'), seg(1, 25_000, 'ready'), seg(2, 25_000, 'building')];
    expect(absorbSelection(segments)).toBeUndefined();
    expect(mergeSelection(segments, 8, 4)).toBeUndefined();
    // Past maxSegments the tiered policy still runs: the smallest go together.
    const many = [seg(0, 100_000, 'building'), ...Array.from({ length: 8 }, (_, i) => seg(i + 1, 1000 + i, 'ready'))];
    expect(ids(mergeSelection(many, 8, 4))).toEqual([1, 2]);
  });

  it('leaves a small tail (under ABSORB_RATIO of the largest) to the tiered policy, bounding the bytes rewritten', () => {
    const largest = 80_000;
    const tail = largest * ABSORB_RATIO;
    expect(mergeSelection([seg(0, largest, 'ready'), seg(1, tail / 2 - 1, 'ready'), seg(2, tail / 2, 'building')], 8, 4)).toBeUndefined();
    expect(ids(mergeSelection([seg(0, largest, 'ready'), seg(1, tail / 2, 'ready'), seg(2, tail / 2, 'building')], 8, 4))).toEqual([0, 1, 2]);
  });

  it('absorbs into a largest segment with deletions (a full graph rebuild) only once the others match its live size', () => {
    expect(absorbSelection([seg(0, 50_000, 'ready', 1), seg(1, 40_000, 'ready')])).toBeUndefined();
    expect(ids(absorbSelection([seg(0, 50_000, 'ready', 1), seg(1, 49_999, 'ready')]))).toEqual([0, 1]);
    // Live documents decide which segment is the largest.
    expect(ids(absorbSelection([seg(0, 50_000, 'ready', 45_000), seg(1, 10_000, 'ready')]))).toEqual([0, 1]);
  });
});
