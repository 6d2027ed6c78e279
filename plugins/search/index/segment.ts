import type { Analyzer } from '../analysis/analyzer.js';
import { resetTermIdsIfLarge } from '../analysis/term-ids.js';
import { PostingsBuilder } from './postings-builder.js';
import type { TextField } from './text-field.js';

export type { TextField } from './text-field.js';

/**
 * An immutable batch of documents, Lucene-style: per text field a term dictionary with postings
 * (ordinals, term frequencies, positions) and per-document lengths; per keyword field a value
 * dictionary; per number/date field min and max columns; per boolean field a column; per field an
 * "exists" bitset. Deletes never touch a segment: they are tombstones kept beside it.
 */
export interface KeywordField {
  values: string[];
  valueStarts: Uint32Array;
  docs: Uint32Array;
}

export interface SegmentData {
  docCount: number;
  /** Ordinal -> document id. */
  ids: string[];
  text: Record<string, TextField>;
  keyword: Record<string, KeywordField>;
  /** number and date fields; NaN where missing. A range matches a document if [min, max] can. */
  numeric: Record<string, { min: Float64Array; max: Float64Array }>;
  /** 0 false, 1 true, 2 missing, 3 both (a multi-valued field holding true and false). */
  boolean: Record<string, Uint8Array>;
  exists: Record<string, Uint32Array>;
  /** geo_point fields: one point per document (a multi-valued field keeps its first point). */
  geo?: Record<string, { lats: Float64Array; lons: Float64Array; present: Uint32Array }>;
  /** `_vector`s, row per ordinal (zeros where a document has none; `present` says which have one). */
  vectors?: { dims: number; data: Float32Array; present: Uint32Array };
}

/** What the segment builder needs of a validated document. */
export interface IndexableDocument {
  id: string;
  fields: Record<string, { type: string; values: unknown[] }>;
  vector?: readonly number[];
}

export function buildSegment(docs: readonly IndexableDocument[], analyzers: Record<string, Analyzer>): SegmentData {
  const docCount = docs.length;
  const words = Math.ceil(docCount / 32);
  resetTermIdsIfLarge();
  const textAcc = new Map<string, PostingsBuilder>();
  const keywordAcc = new Map<string, Map<string, number[]>>();
  const numeric: SegmentData['numeric'] = Object.create(null);
  const boolean: SegmentData['boolean'] = Object.create(null);
  const exists: SegmentData['exists'] = Object.create(null);
  const geo: NonNullable<SegmentData['geo']> = Object.create(null);

  docs.forEach((doc, ord) => {
    for (const [field, { type, values }] of Object.entries(doc.fields)) {
      if (values.length === 0) continue;
      (exists[field] ??= new Uint32Array(words))[ord >>> 5]! |= 1 << (ord & 31);
      if (type === 'text') {
        const analyzer = analyzers[field];
        if (!analyzer) continue;
        let postings = textAcc.get(field);
        if (!postings) textAcc.set(field, (postings = new PostingsBuilder(docCount)));
        postings.add(ord, values, analyzer);
      } else if (type === 'keyword') {
        let dict = keywordAcc.get(field);
        if (!dict) keywordAcc.set(field, (dict = new Map()));
        for (const value of new Set(values.map(String))) {
          let list = dict.get(value);
          if (!list) dict.set(value, (list = []));
          list.push(ord);
        }
      } else if (type === 'number' || type === 'date') {
        let column = numeric[field];
        if (!column) {
          column = numeric[field] = { min: new Float64Array(docCount).fill(NaN), max: new Float64Array(docCount).fill(NaN) };
        }
        const nums = values.map(Number);
        column.min[ord] = Math.min(...nums);
        column.max[ord] = Math.max(...nums);
      } else if (type === 'geo_point') {
        const point = values[0] as { lat: number; lon: number };
        const column = (geo[field] ??= { lats: new Float64Array(docCount), lons: new Float64Array(docCount), present: new Uint32Array(words) });
        column.lats[ord] = point.lat;
        column.lons[ord] = point.lon;
        column.present[ord >>> 5]! |= 1 << (ord & 31);
      } else if (type === 'boolean') {
        const column = (boolean[field] ??= new Uint8Array(docCount).fill(2));
        const hasTrue = values.includes(true);
        const hasFalse = values.includes(false);
        column[ord] = hasTrue && hasFalse ? 3 : hasTrue ? 1 : 0;
      }
    }
  });

  const text: SegmentData['text'] = Object.create(null);
  for (const [field, postings] of textAcc) text[field] = postings.build();

  const keyword: SegmentData['keyword'] = Object.create(null);
  for (const [field, dict] of keywordAcc) {
    const values = [...dict.keys()].sort();
    const valueStarts = new Uint32Array(values.length + 1);
    let total = 0;
    for (const v of values) total += dict.get(v)!.length;
    const docsArr = new Uint32Array(total);
    let p = 0;
    values.forEach((v, i) => {
      valueStarts[i] = p;
      for (const d of dict.get(v)!) docsArr[p++] = d;
    });
    valueStarts[values.length] = p;
    keyword[field] = { values, valueStarts, docs: docsArr };
  }

  let vectors: SegmentData['vectors'];
  const firstVector = docs.find((d) => d.vector !== undefined)?.vector;
  if (firstVector) {
    const dims = firstVector.length;
    const data = new Float32Array(docCount * dims);
    const present = new Uint32Array(words);
    docs.forEach((d, ord) => {
      if (!d.vector) return;
      data.set(d.vector, ord * dims);
      present[ord >>> 5]! |= 1 << (ord & 31);
    });
    vectors = { dims, data, present };
  }

  return {
    docCount,
    ids: docs.map((d) => d.id),
    text,
    keyword,
    numeric,
    boolean,
    exists,
    ...(Object.keys(geo).length ? { geo } : {}),
    ...(vectors ? { vectors } : {}),
  };
}

/** Binary-search a sorted dictionary; -1 when absent. */
export function lookup(sorted: readonly string[], key: string): number {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = sorted[mid]!;
    if (v === key) return mid;
    if (v < key) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

// Stored form: typed arrays as byte buffers (lmdb's msgpack does not round-trip typed arrays).
type Encoded = Record<string, unknown>;

const bytes = (a: ArrayBufferView): Buffer => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
function u32(b: Uint8Array): Uint32Array {
  return new Uint32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
}
function f64(b: Uint8Array): Float64Array {
  return new Float64Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
}

/**
 * Format of a stored segment, written in each record (`format`; a record without one is format 1)
 * and checked when the segment is decoded: a segment written by a newer build is refused with a
 * message, rather than read wrongly.
 */
export const SEGMENT_FORMAT = 1;

export function encodeSegment(s: SegmentData): Encoded {
  const map = <T, R>(o: Record<string, T>, fn: (v: T) => R): Record<string, R> => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, fn(v)]));
  return {
    format: SEGMENT_FORMAT,
    docCount: s.docCount,
    ids: s.ids,
    text: map(s.text, (t) => ({
      terms: t.terms,
      termStarts: bytes(t.termStarts),
      docs: bytes(t.docs),
      tfs: bytes(t.tfs),
      posStarts: bytes(t.posStarts),
      positions: bytes(t.positions),
      lengths: bytes(t.lengths),
      sumLength: t.sumLength,
    })),
    keyword: map(s.keyword, (k) => ({ values: k.values, valueStarts: bytes(k.valueStarts), docs: bytes(k.docs) })),
    numeric: map(s.numeric, (n) => ({ min: bytes(n.min), max: bytes(n.max) })),
    boolean: map(s.boolean, (b) => Buffer.from(b)),
    exists: map(s.exists, (e) => bytes(e)),
    ...(s.vectors ? { vectors: { dims: s.vectors.dims, data: bytes(s.vectors.data), present: bytes(s.vectors.present) } } : {}),
    ...(s.geo ? { geo: map(s.geo, (g) => ({ lats: bytes(g.lats), lons: bytes(g.lons), present: bytes(g.present) })) } : {}),
  };
}

export function decodeSegment(e: Encoded): SegmentData {
  const format = e.format ?? 1;
  if (typeof format !== 'number' || !Number.isInteger(format) || format > SEGMENT_FORMAT) {
    throw new Error(`A stored segment has format ${String(format)}, newer than this build reads (${SEGMENT_FORMAT}); upgrade Tessera to open it.`);
  }
  // Null-prototype tables: a field named "toString" or "constructor" must not find Object.prototype's.
  const map = <T, R>(o: unknown, fn: (v: T) => R): Record<string, R> =>
    Object.assign(Object.create(null) as Record<string, R>, Object.fromEntries(Object.entries(o as Record<string, T>).map(([k, v]) => [k, fn(v)])));
  type B = Uint8Array;
  return {
    docCount: e.docCount as number,
    ids: e.ids as string[],
    text: map<Record<string, unknown>, TextField>(e.text, (t) => ({
      terms: t.terms as string[],
      termStarts: u32(t.termStarts as B),
      docs: u32(t.docs as B),
      tfs: u32(t.tfs as B),
      posStarts: u32(t.posStarts as B),
      positions: u32(t.positions as B),
      lengths: u32(t.lengths as B),
      sumLength: t.sumLength as number,
    })),
    keyword: map<Record<string, unknown>, KeywordField>(e.keyword, (k) => ({
      values: k.values as string[],
      valueStarts: u32(k.valueStarts as B),
      docs: u32(k.docs as B),
    })),
    numeric: map<Record<string, B>, { min: Float64Array; max: Float64Array }>(e.numeric, (n) => ({ min: f64(n.min!), max: f64(n.max!) })),
    boolean: map<B, Uint8Array>(e.boolean, (b) => new Uint8Array(b)),
    exists: map<B, Uint32Array>(e.exists, (b) => u32(b)),
    ...(e.vectors ? { vectors: decodeVectors(e.vectors as { dims: number; data: B; present: B }) } : {}),
    ...(e.geo
      ? {
          geo: map<Record<string, B>, { lats: Float64Array; lons: Float64Array; present: Uint32Array }>(e.geo, (g) => ({
            lats: f64(g.lats!),
            lons: f64(g.lons!),
            present: u32(g.present!),
          })),
        }
      : {}),
  };
}

function decodeVectors(v: { dims: number; data: Uint8Array; present: Uint8Array }): NonNullable<SegmentData['vectors']> {
  return { dims: v.dims, data: new Float32Array(v.data.buffer.slice(v.data.byteOffset, v.data.byteOffset + v.data.byteLength)), present: u32(v.present) };
}
