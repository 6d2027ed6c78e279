import * as lmdb from 'lmdb';
import type { Key } from 'lmdb' with { 'resolution-mode': 'require' };
import type { StoreNamespace } from 'tessera-runtime/plugin';
import { openDatabases, type IndexDatabases } from './index-record.js';
import type { SearchIndex } from './search-index.js';

// lmdb encodes keys with this (exported, not typed): a key's stored length is its length.
const keyValueToBuffer = (lmdb as unknown as { keyValueToBuffer(key: Key): Uint8Array }).keyValueToBuffer;

/** What an index takes in the store, in bytes of LMDB keys and values (pages and free space not counted). */
export interface IndexSize {
  bytes: number;
  sizes: { documents: number; documentsEstimated: boolean; segments: number; tombstones: number; graphs: number; other: number; measuredAt: string };
}

/** A measure that took longer than this is not repeated within ten times its duration. */
const CHEAP_MS = 50;
/** Stored sources read one by one up to this many; a sample of this many beyond. */
const EXACT_DOCS = 2000;

/**
 * The byte size of one index in LMDB: its stored sources, segments, tombstones, vector graphs,
 * embedder model and catalogue entry, keys and values as stored. The sum is computed by walking
 * the index's key ranges (values are read as raw bytes, never decoded) and kept until the index's
 * segments change (every write, delete, merge and graph build replaces them). Stored sources are
 * counted exactly up to `EXACT_DOCS` documents; beyond, every key is walked but only an even sample
 * of `EXACT_DOCS` values is read and scaled (`sizes.documentsEstimated: true`), so that asking for
 * statistics never pages a whole collection's sources in from disk. A large index is not walked
 * again within ten times the last walk's duration, so that reading statistics during continuous
 * ingestion costs at most a tenth of a core; its size may then lag by that long
 * (`sizes.measuredAt` says when it was measured).
 */
export function indexSizes(store: StoreNamespace): (index: SearchIndex) => IndexSize {
  const dbs = openDatabases(store);
  const known = new WeakMap<SearchIndex, { segments: SearchIndex['segments']; size: IndexSize; at: number; ms: number }>();
  return (index) => {
    const cached = known.get(index);
    const now = performance.now();
    if (cached && (cached.segments === index.segments || (cached.ms > CHEAP_MS && now - cached.at < cached.ms * 10))) return cached.size;
    const size = measure(dbs, index);
    known.set(index, { segments: index.segments, size, at: now, ms: performance.now() - now });
    return size;
  };
}

function measure(dbs: IndexDatabases, index: SearchIndex): IndexSize {
  const uuid = index.record.uuid;
  const range = <K extends Key>(db: { getKeys(o: object): Iterable<K>; getBinaryFast(k: K): Uint8Array | undefined }, start: K, end: K): number => {
    let n = 0;
    for (const key of db.getKeys({ start, end })) n += entry(db, key);
    return n;
  };
  const entry = <K extends Key>(db: { getBinaryFast(k: K): Uint8Array | undefined }, key: K): number => {
    const value = db.getBinaryFast(key);
    return value === undefined ? 0 : keyValueToBuffer(key).length + value.length;
  };
  const documents = sampledRange(dbs.docs, [uuid, ''], [uuid, '\uffff'], entry);
  const sizes = {
    documents: documents.bytes,
    documentsEstimated: documents.estimated,
    segments: range(dbs.segments, [uuid, 0], [uuid, Number.MAX_SAFE_INTEGER]),
    tombstones: range(dbs.tombstones, [uuid, 0], [uuid, Number.MAX_SAFE_INTEGER]),
    graphs: range(dbs.graphs, [uuid, 0], [uuid, Number.MAX_SAFE_INTEGER]),
    other: entry(dbs.embedderModels, uuid) + entry(dbs.indexes, [index.record.tenant, index.record.name]),
  };
  return {
    bytes: sizes.documents + sizes.segments + sizes.tombstones + sizes.graphs + sizes.other,
    sizes: { ...sizes, measuredAt: new Date().toISOString() },
  };
}

/**
 * Keys and values of a range, exactly when it holds at most `EXACT_DOCS` entries, else every key's
 * length plus the mean of an even sample of `EXACT_DOCS` values times the count. Walking keys reads
 * only the B-tree's leaf pages; a value larger than a page lives on overflow pages that only reading
 * it touches.
 */
function sampledRange<K extends Key>(
  db: { getKeys(o: object): Iterable<K>; getBinaryFast(k: K): Uint8Array | undefined },
  start: K,
  end: K,
  entry: (db: { getBinaryFast(k: K): Uint8Array | undefined }, key: K) => number,
): { bytes: number; estimated: boolean } {
  let count = 0;
  for (const _ of db.getKeys({ start, end })) count++;
  if (count <= EXACT_DOCS) {
    let bytes = 0;
    for (const key of db.getKeys({ start, end })) bytes += entry(db, key);
    return { bytes, estimated: false };
  }
  const stride = count / EXACT_DOCS;
  let keyBytes = 0;
  let valueBytes = 0;
  let sampled = 0;
  let i = 0;
  let next = 0;
  for (const key of db.getKeys({ start, end })) {
    keyBytes += keyValueToBuffer(key).length;
    if (i++ >= next) {
      valueBytes += db.getBinaryFast(key)?.length ?? 0;
      sampled++;
      next += stride;
    }
  }
  return { bytes: keyBytes + Math.round((valueBytes / sampled) * count), estimated: true };
}
