import type { StoreNamespace } from 'tessera-runtime/plugin';
import { finalScanStates, type ScanRecord } from './scan-record.js';

/** A file's fingerprint from the last scan of its source. */
export interface Fingerprint {
  hash: string;
  size: number;
  mtimeMs: number;
}

/** A database scan's position: the last row acknowledged by the index. */
export interface Cursor {
  watermark: unknown;
  primaryKey: unknown;
}

/**
 * Scan records, secrets (the real connection of a database scan, kept apart from the record so no
 * listing can show it), fingerprints per source and database cursors, all per tenant.
 */
export class ScanStore {
  private readonly store: StoreNamespace;

  constructor(store: StoreNamespace) {
    this.store = store;
  }

  private scans(tenant: string) {
    return this.store.forTenant(tenant).db<ScanRecord, string>('scans');
  }

  secrets(tenant: string) {
    return this.store.forTenant(tenant).db<{ connection: unknown }, string>('secrets');
  }

  fingerprints(tenant: string) {
    return this.store.forTenant(tenant).db<Fingerprint, [string, string]>('fingerprints');
  }

  cursors(tenant: string) {
    return this.store.forTenant(tenant).db<Cursor, string>('cursors');
  }

  get(tenant: string, id: string): ScanRecord | undefined {
    return this.scans(tenant).get(id);
  }

  put(tenant: string, record: ScanRecord): Promise<boolean> {
    return this.scans(tenant).put(record.id, record);
  }

  /** Newest first (ids sort by creation time); `cursor` is the last id of the previous page. */
  list(tenant: string, limit: number, cursor?: string): { scans: ScanRecord[]; next?: string } {
    const out: ScanRecord[] = [];
    const range = cursor === undefined ? { reverse: true, limit: limit + 1 } : { reverse: true, end: cursor, limit: limit + 2 };
    for (const { key, value } of this.scans(tenant).getRange(range)) {
      if (key === cursor) continue;
      out.push(value);
      if (out.length > limit) break;
    }
    const more = out.length > limit;
    const page = out.slice(0, limit);
    return more ? { scans: page, next: page[page.length - 1]!.id } : { scans: page };
  }

  /** A scan of the tenant still active on the same source, if any. */
  activeOn(tenant: string, sourceKey: string): ScanRecord | undefined {
    for (const { value } of this.scans(tenant).getRange({ reverse: true })) {
      if (value.sourceKey === sourceKey && !finalScanStates.has(value.state)) return value;
    }
    return undefined;
  }

  /** Fingerprints of a source, in path order. */
  *sourceFingerprints(tenant: string, sourceKey: string): IterableIterator<{ path: string; fingerprint: Fingerprint }> {
    for (const { key, value } of this.fingerprints(tenant).getRange({ start: [sourceKey, ''], end: [`${sourceKey}\u0000`, ''] })) {
      yield { path: key[1], fingerprint: value };
    }
  }

  /** Every tenant's scans not in a final state (start-up reconciliation). */
  *unfinished(): IterableIterator<{ tenant: string; record: ScanRecord }> {
    for (const { key, value } of this.store.db<ScanRecord, [string, string]>('scans').getRange()) {
      if (!finalScanStates.has(value.state)) yield { tenant: key[0], record: value };
    }
  }

  transaction<T>(fn: () => T): Promise<T> {
    return this.store.transaction(fn);
  }
}
