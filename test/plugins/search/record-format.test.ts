import { describe, expect, it } from 'vitest';
import { getAnalyzer } from '../../../plugins/search/analysis/analyzer.js';
import { checkRecordFormat, INDEX_RECORD_FORMAT, type IndexRecord } from '../../../plugins/search/index/index-record.js';
import { buildSegment, decodeSegment, encodeSegment, SEGMENT_FORMAT } from '../../../plugins/search/index/segment.js';

const segment = buildSegment([{ id: 'a', fields: { title: { type: 'text', values: ['wing flutter'] } } }], { title: getAnalyzer('english') });

const record = (format?: number): IndexRecord => ({
  tenant: 'default',
  name: 'papers',
  uuid: 'u1',
  mappings: {},
  settings: {} as IndexRecord['settings'],
  createdAt: '',
  updatedAt: '',
  nextSegment: 1,
  ...(format === undefined ? {} : { format }),
});

describe('stored record formats', () => {
  it('writes the segment format into each segment and reads it back', () => {
    const encoded = encodeSegment(segment);
    expect(encoded.format).toBe(SEGMENT_FORMAT);
    expect(decodeSegment(encoded)).toEqual(segment);
  });

  it('reads a segment written before formats were recorded as format 1', () => {
    const { format: _format, ...legacy } = encodeSegment(segment);
    expect(decodeSegment(legacy)).toEqual(segment);
  });

  it('refuses a segment written by a newer build', () => {
    expect(() => decodeSegment({ ...encodeSegment(segment), format: SEGMENT_FORMAT + 1 })).toThrow(
      `A stored segment has format ${SEGMENT_FORMAT + 1}, newer than this build reads (${SEGMENT_FORMAT}); upgrade Tessera to open it.`,
    );
  });

  it('accepts index records of this format and records without one, refuses newer ones naming the index', () => {
    expect(() => checkRecordFormat(record(INDEX_RECORD_FORMAT))).not.toThrow();
    expect(() => checkRecordFormat(record())).not.toThrow();
    expect(() => checkRecordFormat(record(INDEX_RECORD_FORMAT + 1))).toThrow(
      `Index "papers" of tenant "default" was stored in record format ${INDEX_RECORD_FORMAT + 1}, newer than this build reads (${INDEX_RECORD_FORMAT}); upgrade Tessera to open it.`,
    );
  });
});
