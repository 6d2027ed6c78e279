import { rmSync } from 'node:fs';
import knexFactory, { type Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, postJson, tempDir } from '../../helpers/app.js';
import { docCount, getDocument, getScan, isFinal, searchIds, startScan, startScanner, waitForScan, type ScannerApp } from './support.js';
import { TcpProxy } from './tcp-proxy.js';

/** One driver under the shared database-scan behaviours (the same cases run against SQLite, PostgreSQL and MariaDB). */
export interface DatabaseUnderTest {
  driver: 'sqlite' | 'postgres' | 'mysql';
  /** The connection a scan is given (a URL, or a file path for SQLite). */
  connection: string;
  /** The password inside `connection`, which must never be shown. */
  password?: string;
  /** A knex instance the test writes rows with. */
  admin(): Knex;
  /** The column type of the watermark (microsecond timestamps where the database has them). */
  timestampType: string;
  /** Folder roots the scanner needs (SQLite files must be under one). */
  roots: string[];
  /** The same server reached through another TCP port (for the "goes away" case); absent for SQLite. */
  hostPort?: { host: string; port: number };
  withPort?(connection: string, port: number): string;
  /** A connection whose database name is the password: the server's error names it. */
  secretInErrorConnection?: string;
}

let counter = 0;
const tableName = (label: string) => `scan_${label}_${process.pid}_${++counter}`;
const ts = (second: number, micro = 0) => `2024-01-01 00:00:${String(second).padStart(2, '0')}.${String(micro).padStart(6, '0')}`;

export function databaseScanSuite(db: DatabaseUnderTest): void {
  describe(`database scan (${db.driver})`, () => {
    const dataDir = tempDir('tessera-scan-db-');
    let t: ScannerApp;
    let admin: Knex;
    const options = { roots: db.roots, allowPrivateAddresses: true, retryDelayMs: 50, maxRetryDelayMs: 200, queryTimeoutMs: 3000 };

    beforeAll(async () => {
      admin = db.admin();
      t = await startScanner(options, { dataDir });
    });
    afterAll(async () => {
      await t.stop();
      await admin.destroy();
      rmSync(dataDir, { recursive: true, force: true });
    });

    const createTable = async (label: string): Promise<string> => {
      const name = tableName(label);
      await admin.schema.dropTableIfExists(name);
      await admin.schema.createTable(name, (table) => {
        table.integer('id').primary();
        table.string('title', 200);
        table.specificType('updated_at', db.timestampType);
      });
      return name;
    };
    const insert = (table: string, rows: Array<{ id: number; title: string; updated_at: string }>) => admin(table).insert(rows);
    const body = (table: string, extra: Record<string, unknown> = {}) => ({
      driver: db.driver,
      connection: db.connection,
      table,
      watermarkColumn: 'updated_at',
      targetIndex: `idx-${table.replace(/_/g, '-')}`,
      pollIntervalMs: 50,
      ...extra,
    });

    it('picks up inserts and updates while polling, and stops on DELETE', async () => {
      const table = await createTable('cdc');
      await insert(
        table,
        [1, 2, 3].map((id) => ({ id, title: `heron ${id}`, updated_at: ts(id) })),
      );
      const req = body(table);
      const id = await startScan(t, 'database', req);
      await waitForScan(t, id, (s) => s.state === 'watching' && s.counts.indexed === 3);
      expect(await searchIds(t, req.targetIndex, 'heron')).toEqual(['1', '2', '3']);

      await insert(table, [{ id: 4, title: 'egret 4', updated_at: ts(10) }]);
      await admin(table)
        .where({ id: 2 })
        .update({ title: 'egret 2', updated_at: ts(11) });
      const scan = await waitForScan(t, id, (s) => s.counts.indexed === 5);
      expect(scan.counts).toMatchObject({ seen: 5, created: 4, modified: 1, errors: 0 });
      expect(scan.watermark).toEqual({ value: expect.stringContaining('2024-01-01 00:00:11'), primaryKey: 2 });
      expect(await searchIds(t, req.targetIndex, 'egret')).toEqual(['2', '4']);
      expect(await getDocument(t, req.targetIndex, '2')).toMatchObject({ id: '2', title: 'egret 2' });

      const stop = await json(await fetch(`${t.scanner}/v1/scans/${id}`, { method: 'DELETE' }));
      expect(stop.scan.state).toBe('stopped');
      await insert(table, [{ id: 5, title: 'egret 5', updated_at: ts(12) }]);
      await new Promise((r) => setTimeout(r, 300));
      expect(await searchIds(t, req.targetIndex, 'egret')).toEqual(['2', '4']);
    });

    it('never skips nor repeats rows that share a timestamp across page boundaries', async () => {
      const table = await createTable('ties');
      // Seven rows in one microsecond, three in the next, read two at a time.
      const rows = [
        ...[7, 3, 5, 1, 6, 2, 4].map((id) => ({ id, title: `tie ${id}`, updated_at: ts(1, 500) })),
        ...[9, 8, 10].map((id) => ({ id, title: `tie ${id}`, updated_at: ts(1, 501) })),
      ];
      await insert(table, rows);
      const req = body(table, { pageSize: 2, watch: false });
      const id = await startScan(t, 'database', req);
      const scan = await waitForScan(t, id, isFinal);
      expect(scan).toMatchObject({ state: 'completed', counts: { seen: 10, indexed: 10, created: 10, modified: 0 } });
      expect(await docCount(t, req.targetIndex)).toBe(10);

      // More rows at the very timestamp of the last page, with higher keys: a later scan of the same source continues from the stored position.
      await insert(
        table,
        [11, 12, 13].map((id) => ({ id, title: `tie ${id}`, updated_at: ts(1, 501) })),
      );
      const next = await waitForScan(t, await startScan(t, 'database', req), isFinal);
      expect(next.counts).toMatchObject({ seen: 3, indexed: 3, created: 3 });
      expect(await docCount(t, req.targetIndex)).toBe(13);
    });

    it('continues exactly where it stopped after a restart', async () => {
      const table = await createTable('restart');
      await insert(
        table,
        [1, 2, 3, 4].map((id) => ({ id, title: `kestrel ${id}`, updated_at: ts(id) })),
      );
      const req = body(table, { pageSize: 3 });
      const id = await startScan(t, 'database', req);
      await waitForScan(t, id, (s) => s.state === 'watching' && s.counts.indexed === 4);
      await t.stop();
      await insert(
        table,
        [5, 6].map((id) => ({ id, title: `kestrel ${id}`, updated_at: ts(id) })),
      );
      t = await startScanner(options, { dataDir });
      const scan = await waitForScan(t, id, (s) => s.state === 'watching' && s.counts.indexed === 6);
      // Only the two new rows were read after the restart.
      expect(scan.counts).toMatchObject({ seen: 6, created: 6, modified: 0 });
      expect(await searchIds(t, req.targetIndex, 'kestrel')).toEqual(['1', '2', '3', '4', '5', '6']);
      await fetch(`${t.scanner}/v1/scans/${id}`, { method: 'DELETE' });
    });

    it('answers 400 for an unknown driver, a missing table or a missing column, before anything starts', async () => {
      const table = await createTable('valid');
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ ...body(table), driver: 'oracle' }, 'validation_failed'],
        [body(`${table}_missing`), 'table_not_found'],
        [{ ...body(table), watermarkColumn: 'changed_at' }, 'column_not_found'],
        [{ ...body(table), primaryKey: 'uuid' }, 'column_not_found'],
        [{ ...body(table), driver: 'generic_sql', connection: { client: 'oracledb', connection: {} } }, 'unsupported_driver'],
      ];
      for (const [request, code] of cases) {
        const res = await postJson(`${t.scanner}/v1/scans/database`, request);
        expect(res.status, code).toBe(400);
        expect((await json(res)).error.code).toBe(code);
      }
      const list = await json(await fetch(`${t.scanner}/v1/scans?limit=1000`));
      expect(list.scans.some((s: any) => s.input.table === `${table}_missing`)).toBe(false);
    });

    if (db.password) {
      it('never shows the password: not in answers, records, events, logs or driver errors', async () => {
        const password = db.password!;
        const table = await createTable('secret');
        await insert(table, [{ id: 1, title: 'plover', updated_at: ts(1) }]);
        const req = body(table, { watch: false });
        const id = await startScan(t, 'database', req);
        const done = await waitForScan(t, id, isFinal);
        expect(done.state).toBe('completed');
        expect(done.input.connection).toContain('***');
        expect(done.input.connection).not.toContain(password);

        // The server's own error names the database, which here is the password.
        const failing = await startScan(t, 'database', { ...req, connection: db.secretInErrorConnection!, targetIndex: 'secret-failing' });
        const failed = await waitForScan(t, failing, isFinal);
        expect(failed.state).toBe('failed');
        expect(failed.error.message).toContain('***');

        const everything = [
          JSON.stringify(await json(await fetch(`${t.scanner}/v1/scans?limit=1000`))),
          JSON.stringify(await getScan(t, id)),
          JSON.stringify(failed),
          await (await fetch(`${t.scanner}/v1/scans/${failing}/events`)).text(),
          JSON.stringify(t.logs),
        ].join('\n');
        expect(everything).toContain('***');
        expect(everything).not.toContain(password);
        expect(everything).not.toContain(encodeURIComponent(password));
      });
    }

    if (db.hostPort) {
      it('retries with backoff while the database is away and catches up when it is back', async () => {
        const proxy = new TcpProxy(db.hostPort!);
        await proxy.open();
        try {
          const table = await createTable('away');
          await insert(table, [{ id: 1, title: 'gannet 1', updated_at: ts(1) }]);
          const req = body(table, { connection: db.withPort!(db.connection, proxy.port) });
          const id = await startScan(t, 'database', req);
          await waitForScan(t, id, (s) => s.state === 'watching' && s.counts.indexed === 1);
          await proxy.close();
          const away = await waitForScan(t, id, (s) => s.retry !== null && s.retry.attempt >= 2);
          expect(away).toMatchObject({
            state: 'watching',
            error: { code: 'source_unreachable' },
            retry: { attempt: expect.any(Number), delayMs: expect.any(Number), nextAttemptAt: expect.any(String) },
          });
          expect(away.error.message).not.toContain(db.password ?? '\u0000');
          await insert(table, [{ id: 2, title: 'gannet 2', updated_at: ts(2) }]);
          await proxy.open();
          const back = await waitForScan(t, id, (s) => s.counts.indexed === 2 && s.retry === null);
          expect(back).toMatchObject({ state: 'watching', error: null });
          expect(await searchIds(t, req.targetIndex, 'gannet')).toEqual(['1', '2']);
          await fetch(`${t.scanner}/v1/scans/${id}`, { method: 'DELETE' });
        } finally {
          await proxy.close();
        }
      });

      it('fails a one-off scan of an unreachable database with the reason', async () => {
        const proxy = new TcpProxy(db.hostPort!);
        await proxy.open();
        const port = proxy.port;
        await proxy.close();
        const table = await createTable('gone');
        const id = await startScan(t, 'database', body(table, { connection: db.withPort!(db.connection, port), watch: false }));
        const scan = await waitForScan(t, id, isFinal);
        expect(scan).toMatchObject({ state: 'failed', error: { code: 'source_unreachable', message: expect.stringMatching(/ECONNREFUSED|connect/i) } });
      });
    }
  });
}

/** Whether a server answers on host:port (tests skip, with how to start it, when none does). */
export async function reachable(host: string, port: number): Promise<boolean> {
  const net = await import('node:net');
  return new Promise((resolve) => {
    const socket = net.connect(port, host);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.setTimeout(1000, () => {
      socket.destroy();
      resolve(false);
    });
  });
}

export const knex = knexFactory;
