import type { Knex } from 'knex';
import type { Logger } from 'tessera-runtime/plugin';
import { inspectTable, openDatabase, rowToDocument, type TableShape } from './database-source.js';
import { errors } from './errors.js';
import type { IndexShape, IndexSink } from './index-sink.js';
import { scrubError } from './redact.js';
import type { ScanRun } from './scan-run.js';
import type { Cursor, ScanStore } from './scan-store.js';

export interface DatabaseScanSpec {
  config: Knex.Config;
  table: string;
  watermarkColumn: string;
  primaryKey?: string;
  pollIntervalMs: number;
  pageSize: number;
  /** Keep polling after catching up (the default), or stop once the table has been read. */
  watch: boolean;
}

export interface DatabaseScanDeps {
  run: ScanRun;
  sink: IndexSink;
  store: ScanStore;
  signal: AbortSignal;
  log: Logger;
  secrets: readonly string[];
  retryDelayMs: number;
  maxRetryDelayMs: number;
  queryTimeoutMs: number;
  onWatching(): Promise<void>;
}

export const databaseIndexShape: IndexShape = { dynamic: true, mappings: {} };

class Stopped extends Error {}

/**
 * Rule 4 of the seed: polls the table by `watermarkColumn`, ties broken by the primary key, so
 * `(watermark, pk) > (last watermark, last pk)` ordered by both never skips nor repeats a row
 * whatever the page size. Each page is upserted, the index's acknowledgement awaited, and only then
 * the new position stored (in one transaction with the scan's counters): a restart continues from
 * the last acknowledged row, and a crash between the two re-sends that page, which the index
 * applies idempotently (ids are primary keys).
 */
export class DatabaseScan {
  private readonly spec: DatabaseScanSpec;
  private readonly deps: DatabaseScanDeps;
  private db: Knex | undefined;
  private shape: TableShape | undefined;

  constructor(spec: DatabaseScanSpec, deps: DatabaseScanDeps) {
    this.spec = spec;
    this.deps = deps;
  }

  private get cursorKey(): string {
    return `db:${this.deps.run.record.sourceKey}`;
  }

  async run(): Promise<void> {
    const { run, signal } = this.deps;
    let failures = 0;
    let watching = false;
    try {
      await this.deps.sink.ensureIndex();
      while (!signal.aborted) {
        let caughtUp: boolean;
        try {
          caughtUp = await this.pollWithin(this.deps.queryTimeoutMs);
          if (failures > 0) {
            failures = 0;
            run.record.retry = null;
            run.record.error = null;
            await run.setState(watching ? 'watching' : 'running');
          }
        } catch (err) {
          if (signal.aborted) break;
          const code = (err as { code?: string }).code;
          // Wrong table or column is the request's fault, not the network's: no point retrying.
          const permanent = code === 'table_not_found' || code === 'column_not_found' || code === 'primary_key_required';
          const message = scrubError(err, this.deps.secrets);
          if (!this.spec.watch || permanent) {
            throw Object.assign(new Error(message), { code: permanent ? code : 'source_unreachable' });
          }
          failures++;
          const delayMs = Math.min(this.deps.maxRetryDelayMs, this.deps.retryDelayMs * 2 ** (failures - 1));
          run.record.retry = { attempt: failures, nextAttemptAt: new Date(Date.now() + delayMs).toISOString(), delayMs };
          run.record.error = { code: 'source_unreachable', message };
          this.deps.log.warn({ scan: run.record.id, attempt: failures, delayMs, error: message }, 'database scan cannot reach its source; retrying');
          await run.setState(run.record.state, {});
          await this.reset();
          await this.sleep(delayMs);
          continue;
        }
        if (!caughtUp) continue;
        if (!this.spec.watch) return;
        if (!watching) {
          watching = true;
          await this.deps.onWatching();
        }
        await this.sleep(this.spec.pollIntervalMs);
      }
      throw signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason));
    } finally {
      await this.reset();
    }
  }

  private async reset(): Promise<void> {
    const db = this.db;
    this.db = undefined;
    this.shape = undefined;
    if (!db) return;
    // A pool whose connection hangs (a half-open socket) may never finish draining: wait briefly, then let it go.
    const destroyed = db.destroy().catch(() => undefined);
    await Promise.race([destroyed, new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      if (this.deps.signal.aborted) return resolve();
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.deps.signal.addEventListener('abort', done, { once: true });
    });
  }

  /** One poll, abandoned (and its connections destroyed) when it outlives the timeout. */
  private async pollWithin(ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(Object.assign(new Error(`The database did not answer within ${ms} ms.`), { code: 'source_unreachable' })), ms);
    });
    const poll = this.pollOnce();
    poll.catch(() => undefined);
    try {
      return await Promise.race([poll, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Reads and applies one page; true when the table had nothing more (caught up). */
  private async pollOnce(): Promise<boolean> {
    const { run, sink, store, signal } = this.deps;
    this.db ??= openDatabase(this.spec.config);
    this.shape ??= await inspectTable(this.db, this.spec.table, this.spec.watermarkColumn, this.spec.primaryKey);
    const wm = this.spec.watermarkColumn;
    const pk = this.shape.primaryKey;
    const cursors = store.cursors(run.tenant);
    const cursor = cursors.get(this.cursorKey);
    let query = this.db(this.spec.table).select('*');
    if (cursor) {
      query = query.where((q) =>
        q
          .where(wm, '>', cursor.watermark as Knex.Value)
          .orWhere((q2) => q2.where(wm, '=', cursor.watermark as Knex.Value).andWhere(pk, '>', cursor.primaryKey as Knex.Value)),
      );
    } else {
      // Rows without a watermark cannot be placed in the order: they are never read.
      query = query.whereNotNull(wm);
    }
    query = query.orderBy([{ column: wm }, { column: pk }]).limit(this.spec.pageSize);
    let rows = 0;
    let last: Cursor | undefined;
    const ids: string[] = [];
    for await (const row of query.stream() as AsyncIterable<Record<string, unknown>>) {
      if (signal.aborted) throw new Stopped();
      rows++;
      run.counts.seen++;
      const doc = rowToDocument(row);
      const id = String(row[pk]);
      doc.id = id;
      const existed = sink.has(id);
      await sink.upsert(doc);
      if (existed === true) run.counts.modified++;
      else if (existed === false) run.counts.created++;
      ids.push(id);
      last = { watermark: row[wm], primaryKey: row[pk] };
    }
    if (rows === 0) return true;
    const result = await sink.flush();
    run.acknowledge(result);
    run.record.progress.done = run.counts.seen;
    run.record.watermark = { value: last!.watermark, primaryKey: last!.primaryKey };
    await run.checkpoint(() => void cursors.put(this.cursorKey, last!));
    return rows < this.spec.pageSize;
  }
}

export { errors as databaseErrors };
