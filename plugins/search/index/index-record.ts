import type { Database } from 'lmdb' with { 'resolution-mode': 'require' };
import type { StoreNamespace } from 'tessera-runtime/plugin';
import type { FieldMapping, IndexSettings } from './mappings.js';

/**
 * Format of one index record. Each record carries the format it was written in (`format`; a record
 * without one is format 1), checked when the index is opened: a record written by a newer build is
 * refused with a message naming the index, rather than read wrongly. The store as a whole has its
 * own format (`SEARCH_DATA_FORMAT`, `ctx.store.format`); these say what each record holds.
 */
export const INDEX_RECORD_FORMAT = 1;

/** What is stored per index. `uuid` keys its data, so a deleted and re-created name never sees old data. */
export interface IndexRecord {
  /** The tenant that owns the index; its name is unique within the tenant. */
  tenant: string;
  name: string;
  uuid: string;
  mappings: Record<string, FieldMapping>;
  settings: IndexSettings;
  createdAt: string;
  updatedAt: string;
  nextSegment: number;
  /** INDEX_RECORD_FORMAT when written (absent in records written before it was recorded: 1). */
  format?: number;
}

export interface IndexDatabases {
  /** The catalogue, keyed by [tenant, name]. */
  indexes: Database<IndexRecord, [string, string]>;
  /** Sources as JSON bytes: JSON.stringify is native, and most readers want JSON anyway. */
  docs: Database<Buffer, [string, string]>;
  segments: Database<Record<string, unknown>, [string, number]>;
  tombstones: Database<Buffer, [string, number]>;
  /** HNSW graph bytes per segment, written when a build finishes (a missing one is rebuilt). */
  graphs: Database<Buffer, [string, number]>;
  /** The built-in embedder's trained term model per index uuid (corpus-lsa.ts), written with the vectors it made. */
  embedderModels: Database<Buffer, string>;
}

/** What a committed write changed, for the engine's `documents.written` event. */
export interface WriteChange {
  upserted: string[];
  deleted: string[];
}

export interface UpsertResult {
  indexed: number;
  ids: string[];
  errors: Array<{ position: number; id?: string; code: string; message: string }>;
}

export function openDatabases(store: StoreNamespace): IndexDatabases {
  return {
    indexes: store.db<IndexRecord, [string, string]>('indexes'),
    docs: store.db<Buffer, [string, string]>('docs', { encoding: 'binary' }),
    segments: store.db<Record<string, unknown>, [string, number]>('segments'),
    tombstones: store.db<Buffer, [string, number]>('tombstones'),
    graphs: store.db<Buffer, [string, number]>('graphs', { encoding: 'binary' }),
    embedderModels: store.db<Buffer, string>('embedderModels', { encoding: 'binary' }),
  };
}

/** Refuses a record written by a newer build (its format is higher than this build reads). */
export function checkRecordFormat(record: IndexRecord): void {
  const format = record.format ?? 1;
  if (!Number.isInteger(format) || format > INDEX_RECORD_FORMAT) {
    throw new Error(
      `Index "${record.name}" of tenant "${record.tenant}" was stored in record format ${String(record.format)}, newer than this build reads (${INDEX_RECORD_FORMAT}); upgrade Tessera to open it.`,
    );
  }
}
