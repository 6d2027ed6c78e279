/**
 * The SQLite driver (better-sqlite3), for `dbPath`: one file a user can open with `sqlite3`.
 * WAL journal with `synchronous = NORMAL`: a commit is in the WAL file when it returns, which
 * survives kill -9 but not necessarily a power loss (fsync at checkpoints only; docs/workflow.md,
 * Durability). Each execution's record, timeline and search fields commit in one transaction,
 * shared with the other executions written in the same event turn (group commit, below);
 * incremental auto-vacuum gives free pages back to the file system.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { matchesQuery, type DeployRecord, type ExecutionRecord, type TestRecord, type WorkflowRecord, type WorkflowStorage } from './storage.js';

export function sqliteStorage(dbPath: string, manifestFile = '.'): WorkflowStorage {
  const file = path.isAbsolute(dbPath) ? dbPath : path.resolve(path.dirname(manifestFile), dbPath);
  mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('auto_vacuum = INCREMENTAL');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(`
    CREATE TABLE IF NOT EXISTS workflows (tenant TEXT NOT NULL, id TEXT NOT NULL, json TEXT NOT NULL, PRIMARY KEY (tenant, id));
    CREATE TABLE IF NOT EXISTS executions (tenant TEXT NOT NULL, id TEXT NOT NULL, workflow TEXT NOT NULL, status TEXT NOT NULL, started_at TEXT NOT NULL, json TEXT NOT NULL, PRIMARY KEY (tenant, id));
    DROP INDEX IF EXISTS executions_status;
    CREATE INDEX IF NOT EXISTS executions_running ON executions (id) WHERE status = 'running';
    CREATE TABLE IF NOT EXISTS execution_fields (tenant TEXT NOT NULL, field TEXT NOT NULL, value TEXT NOT NULL, id TEXT NOT NULL, PRIMARY KEY (tenant, field, value, id));
    CREATE INDEX IF NOT EXISTS execution_fields_id ON execution_fields (tenant, id);
    CREATE TABLE IF NOT EXISTS tests (tenant TEXT NOT NULL, id TEXT NOT NULL, workflow TEXT NOT NULL, json TEXT NOT NULL, PRIMARY KEY (tenant, id));
    CREATE TABLE IF NOT EXISTS deploys (tenant TEXT NOT NULL, id TEXT NOT NULL, json TEXT NOT NULL, PRIMARY KEY (tenant, id));
  `);
  const st = {
    putWf: db.prepare('INSERT OR REPLACE INTO workflows (tenant, id, json) VALUES (?, ?, ?)'),
    getWf: db.prepare('SELECT json FROM workflows WHERE tenant = ? AND id = ?'),
    listWf: db.prepare('SELECT json FROM workflows WHERE tenant = ? ORDER BY id'),
    allWf: db.prepare('SELECT json FROM workflows ORDER BY tenant, id'),
    delWf: db.prepare('DELETE FROM workflows WHERE tenant = ? AND id = ?'),
    putEx: db.prepare('INSERT OR REPLACE INTO executions (tenant, id, workflow, status, started_at, json) VALUES (?, ?, ?, ?, ?, ?)'),
    getEx: db.prepare('SELECT json FROM executions WHERE tenant = ? AND id = ?'),
    pageEx: db.prepare('SELECT json FROM executions WHERE tenant = ? AND id < ? ORDER BY id DESC LIMIT ?'),
    pageField: db.prepare(
      'SELECT e.json FROM execution_fields f JOIN executions e ON e.tenant = f.tenant AND e.id = f.id WHERE f.tenant = ? AND f.field = ? AND f.value = ? AND f.id < ? ORDER BY f.id DESC LIMIT ?',
    ),
    putField: db.prepare('INSERT OR IGNORE INTO execution_fields (tenant, field, value, id) VALUES (?, ?, ?, ?)'),
    delFields: db.prepare('DELETE FROM execution_fields WHERE tenant = ? AND id = ?'),
    delEx: db.prepare('DELETE FROM executions WHERE tenant = ? AND id = ?'),
    countEx: db.prepare('SELECT COUNT(*) AS n FROM executions WHERE tenant = ?'),
    tenantsEx: db.prepare('SELECT DISTINCT tenant FROM executions'),
    running: db.prepare("SELECT json FROM executions WHERE status = 'running'"),
    oldest: db.prepare("SELECT id, started_at FROM executions WHERE tenant = ? AND status != 'running' ORDER BY id ASC LIMIT ?"),
    putTest: db.prepare('INSERT OR REPLACE INTO tests (tenant, id, workflow, json) VALUES (?, ?, ?, ?)'),
    getTest: db.prepare('SELECT json FROM tests WHERE tenant = ? AND id = ?'),
    listTests: db.prepare('SELECT json FROM tests WHERE tenant = ? ORDER BY id'),
    delTest: db.prepare('DELETE FROM tests WHERE tenant = ? AND id = ?'),
    putDeploy: db.prepare('INSERT OR REPLACE INTO deploys (tenant, id, json) VALUES (?, ?, ?)'),
    listDeploys: db.prepare('SELECT json FROM deploys WHERE tenant = ? ORDER BY id DESC LIMIT ?'),
  };
  const parse = <T>(row: unknown): T | undefined => (row === undefined ? undefined : (JSON.parse((row as { json: string }).json) as T));
  const rows = <T>(list: unknown[]): T[] => list.map((r) => JSON.parse((r as { json: string }).json) as T);
  const putEx = (e: ExecutionRecord): void => {
    st.putEx.run(e.tenant, e.id, e.workflow, e.status, e.startedAt, JSON.stringify(e));
  };
  // Group commit. The execution writes issued in one event turn (the running markers and finished
  // records of every request served in it) commit in one transaction, run right after the turn's
  // I/O (setImmediate); each write's promise resolves only once that transaction has committed, so
  // an execution is still acknowledged after its commit. A running marker whose finished record is
  // in the same batch is superseded and not written. If the batch fails, each write is retried in
  // a transaction of its own, so one bad record fails only its own caller.
  interface Write {
    e: ExecutionRecord;
    json: string;
    final: boolean;
    resolve: () => void;
    reject: (err: unknown) => void;
  }
  let queue: Write[] = [];
  let pending: NodeJS.Immediate | undefined;
  const writeOne = (w: Write): void => {
    st.putEx.run(w.e.tenant, w.e.id, w.e.workflow, w.e.status, w.e.startedAt, w.json);
    if (w.final) for (const [f, v] of Object.entries(w.e.fields)) st.putField.run(w.e.tenant, f, v, w.e.id);
  };
  const writeBatch = db.transaction((batch: Write[]) => {
    const finals = new Set<string>();
    for (const w of batch) if (w.final) finals.add(`${w.e.tenant}\u0000${w.e.id}`);
    for (const w of batch) if (w.final || !finals.has(`${w.e.tenant}\u0000${w.e.id}`)) writeOne(w);
  });
  const writeAlone = db.transaction(writeOne);
  const flush = (): void => {
    pending = undefined;
    const batch = queue;
    queue = [];
    if (batch.length === 0) return;
    try {
      writeBatch(batch);
    } catch {
      for (const w of batch) {
        try {
          writeAlone(w);
          w.resolve();
        } catch (err) {
          counts.delete(w.e.tenant);
          w.reject(err);
        }
      }
      return;
    }
    for (const w of batch) w.resolve();
  };
  const enqueue = (e: ExecutionRecord, final: boolean): Promise<void> =>
    new Promise((resolve, reject) => {
      // Serialised now: the stored record is the one given, whatever the caller does with it next.
      queue.push({ e, json: JSON.stringify(e), final, resolve, reject });
      pending ??= setImmediate(flush);
    });
  // Executions per tenant, counted once and then kept up to date (this process is the only writer
  // while the server runs), so an inline prune does not count the tenant's rows each time. A
  // started execution is new (its id is fresh); a record finished without a start may replace one,
  // so the tenant is counted again next time (after committing the writes queued, so it counts them).
  const counts = new Map<string, number>();
  const started = new Set<string>();
  const countOf = (tenant: string): number => {
    let n = counts.get(tenant);
    if (n === undefined) {
      if (pending) clearImmediate(pending);
      flush();
      counts.set(tenant, (n = (st.countEx.get(tenant) as { n: number }).n));
    }
    return n;
  };
  const remove = db.transaction((tenant: string, ids: string[]): number => {
    let deleted = 0;
    for (const id of ids) {
      st.delFields.run(tenant, id);
      deleted += st.delEx.run(tenant, id).changes;
    }
    return deleted;
  });

  return {
    driver: 'sqlite',
    async listWorkflows(tenant) {
      return rows<WorkflowRecord>(tenant === undefined ? st.allWf.all() : st.listWf.all(tenant));
    },
    async getWorkflow(tenant, id) {
      return parse<WorkflowRecord>(st.getWf.get(tenant, id));
    },
    async putWorkflow(r) {
      st.putWf.run(r.tenant, r.id, JSON.stringify(r));
    },
    async deleteWorkflow(tenant, id) {
      return st.delWf.run(tenant, id).changes > 0;
    },
    startExecution(e) {
      const n = counts.get(e.tenant);
      if (n !== undefined) counts.set(e.tenant, n + 1);
      started.add(`${e.tenant}\u0000${e.id}`);
      return enqueue(e, false);
    },
    finishExecution(e) {
      if (!started.delete(`${e.tenant}\u0000${e.id}`)) counts.delete(e.tenant);
      return enqueue(e, true);
    },
    async getExecution(tenant, id) {
      return parse<ExecutionRecord>(st.getEx.get(tenant, id));
    },
    async queryExecutions(tenant, q) {
      const out: ExecutionRecord[] = [];
      let cursor = q.cursor ?? '\uffff';
      const fields = Object.entries(q.fields ?? {});
      const chunk = Math.max(q.limit * 2, 100);
      for (;;) {
        const page = rows<ExecutionRecord>(
          fields.length > 0 ? st.pageField.all(tenant, fields[0]![0], fields[0]![1], cursor, chunk) : st.pageEx.all(tenant, cursor, chunk),
        );
        for (const e of page) {
          if (!matchesQuery(e, q)) continue;
          if (out.length === q.limit) return { executions: out, nextCursor: out[out.length - 1]!.id };
          out.push(e);
        }
        if (page.length < chunk) return { executions: out, nextCursor: null };
        cursor = page[page.length - 1]!.id;
      }
    },
    async countExecutions(tenant) {
      return countOf(tenant);
    },
    async executionTenants() {
      return (st.tenantsEx.all() as Array<{ tenant: string }>).map((r) => r.tenant);
    },
    async markInterrupted(now) {
      const list = rows<ExecutionRecord>(st.running.all());
      db.transaction(() => {
        for (const e of list)
          putEx({
            ...e,
            status: 'interrupted',
            finishedAt: now,
            error: { code: 'interrupted', message: 'the process stopped while this execution was running' },
          });
      })();
      return list.length;
    },
    async prune(tenant, o) {
      const cutoff = new Date((o.now ?? Date.now()) - o.maxAgeMs).toISOString();
      let excess = Math.max(0, countOf(tenant) - o.maxCount);
      const ids: string[] = [];
      // Read only as far as the first execution kept (a statement being iterated is closed on break).
      for (const r of st.oldest.iterate(tenant, o.batch) as IterableIterator<{ id: string; started_at: string }>) {
        if (excess > 0 || r.started_at < cutoff) {
          ids.push(r.id);
          excess--;
        } else break;
      }
      if (ids.length === 0) return 0;
      const deleted = remove(tenant, ids);
      if (counts.has(tenant)) counts.set(tenant, counts.get(tenant)! - deleted);
      // Freed pages are reused by the next inserts; the file gives them back once they are over a
      // quarter of it, not after every pass (which moved pages back and forth under a steady load).
      if ((db.pragma('freelist_count', { simple: true }) as number) * 4 > (db.pragma('page_count', { simple: true }) as number))
        db.pragma('incremental_vacuum');
      return ids.length;
    },
    async putTest(t: TestRecord) {
      st.putTest.run(t.tenant, t.id, t.workflow, JSON.stringify(t));
    },
    async getTest(tenant, id) {
      return parse<TestRecord>(st.getTest.get(tenant, id));
    },
    async listTests(tenant, workflow) {
      return rows<TestRecord>(st.listTests.all(tenant)).filter((t) => workflow === undefined || t.workflow === workflow);
    },
    async deleteTest(tenant, id) {
      return st.delTest.run(tenant, id).changes > 0;
    },
    async putDeploy(d: DeployRecord) {
      st.putDeploy.run(d.tenant, d.id, JSON.stringify(d));
    },
    async listDeploys(tenant, limit) {
      return rows<DeployRecord>(st.listDeploys.all(tenant, limit));
    },
    sizeBytes() {
      const pages = db.pragma('page_count', { simple: true }) as number;
      const free = db.pragma('freelist_count', { simple: true }) as number;
      const size = db.pragma('page_size', { simple: true }) as number;
      return (pages - free) * size;
    },
    async close() {
      if (pending) clearImmediate(pending);
      if (db.open) {
        flush();
        db.close();
      }
    },
  };
}
