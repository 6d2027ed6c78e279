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
  sizes: { documents: number; segments: number; tombstones: number; graphs: number; other: number; measuredAt: string };
}

/** A measure that took longer than this is not repeated within ten times its duration. */
const CHEAP_MS = 50;

/**
 * The byte size of one index in LMDB: its stored sources, segments, tombstones, vector graphs,
 * embedder model and catalogue entry, keys and values as stored. The sum is computed by walking
 * the index's key ranges (values are read as raw bytes, never decoded: about 4 us per document)
 * and kept until the index's segments change (every write, delete, merge and graph build replaces
 * them). A large index is not walked again within ten times the last walk's duration, so that
 * reading statistics during continuous ingestion costs at most a tenth of a core; its size may then
 * lag by that long (`sizes.measuredAt` says when it was measured).
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
  const sizes = {
    documents: range(dbs.docs, [uuid, ''], [uuid, '\uffff']),
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
