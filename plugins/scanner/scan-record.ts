/** A scan as stored and as `GET /v1/scans/{id}` shows it. */

export type ScanType = 'folder' | 'file' | 'database';

/**
 * `queued` (waiting for a slot, or for the next start after a shutdown), `running` (a first pass),
 * `watching` (caught up, applying changes as they come: a watched folder or a polled table), then
 * one of the final states.
 */
export type ScanState = 'queued' | 'running' | 'watching' | 'completed' | 'failed' | 'stopped';

export const finalScanStates: ReadonlySet<ScanState> = new Set(['completed', 'failed', 'stopped']);

export interface ScanCounts {
  /** Files, lines or rows looked at. */
  seen: number;
  /** New documents (folder scans; file and database scans fed in-process). */
  created: number;
  /** Documents whose source changed (folder scans; file and database scans fed in-process). */
  modified: number;
  /** Documents removed from the index (deleted files). */
  deleted: number;
  /** Documents the index acknowledged. */
  indexed: number;
  /** Bad lines, unreadable files, documents the index refused. */
  errors: number;
  /** Entries deliberately left out (excluded paths, symlinks leaving the roots, unchanged files are not counted here). */
  skipped: number;
}

export interface ScanProgress {
  unit: 'files' | 'bytes' | 'rows';
  done: number;
  /** Known for file scans (the file's size); absent where the total is not known up front. */
  total?: number;
}

export interface ScanRecord {
  id: string;
  type: ScanType;
  state: ScanState;
  targetIndex: string;
  /** Where documents go: `in-process` (the search plugin of this runtime) or the remote engine's URL. */
  destination: string;
  /** The request's inputs, with credentials redacted. */
  input: Record<string, unknown>;
  counts: ScanCounts;
  progress: ScanProgress;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  updatedAt: string;
  /** Why the scan failed, or the last failure of a watching scan that is retrying. */
  error: { code: string; message: string } | null;
  /** File scans: the first bad lines, with their line numbers. */
  badLines?: Array<{ line: number; message: string }>;
  /** A watching scan waiting to retry an unreachable source. */
  retry: { attempt: number; nextAttemptAt: string; delayMs: number } | null;
  /** Database scans: the last acknowledged position. */
  watermark?: { value: unknown; primaryKey: unknown } | null;
  /** Identifies the source (type, real path or table, target): scans of one source share fingerprints and watermarks. */
  sourceKey: string;
  jobId: string | null;
}

export function emptyCounts(): ScanCounts {
  return { seen: 0, created: 0, modified: 0, deleted: 0, indexed: 0, errors: 0, skipped: 0 };
}

/** What the list and the events show: the record without internal keys. */
export function publicScan(record: ScanRecord): Omit<ScanRecord, 'sourceKey'> {
  const { sourceKey: _source, ...rest } = record;
  return rest;
}
