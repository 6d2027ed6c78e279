import type { Database } from 'lmdb';
import type { StoreNamespace } from 'tessera-runtime/plugin';
import {
  matchesQuery,
  type DeployRecord,
  type ExecutionRecord,
  type PruneOptions,
  type TestRecord,
  type WorkflowRecord,
  type WorkflowStorage,
} from './storage.js';

type K2 = [string, string];

/** The default driver: named databases in the runtime's LMDB store. */
export function lmdbStorage(store: StoreNamespace): WorkflowStorage {
  const workflows = store.db<WorkflowRecord, K2>('workflows');
  const executions = store.db<ExecutionRecord, K2>('executions');
  const running = store.db<null, K2>('running');
  const byField = store.db<null, [string, string, string, string]>('exec-by-field');
  const tests = store.db<TestRecord, K2>('tests');
  const deploys = store.db<DeployRecord, K2>('deploys');
  const all: Database<any, any>[] = [workflows, executions, running, byField, tests, deploys];

  const tenantRange = <V>(db: Database<V, any>, tenant: string, reverse = false) =>
    reverse ? db.getRange({ start: [tenant, '\uffff'], end: [tenant, ''], reverse: true }) : db.getRange({ start: [tenant, ''], end: [tenant, '\uffff'] });

  // Executions per tenant, counted once and then kept up to date (this process is the only writer:
  // the data directory is locked), so an inline prune does not count the tenant's range each time.
  const counts = new Map<string, number>();
  const started = new Set<string>();
  const countOf = (tenant: string): number => {
    let n = counts.get(tenant);
    if (n === undefined) counts.set(tenant, (n = executions.getCount({ start: [tenant, ''], end: [tenant, '\uffff'] })));
    return n;
  };
  const removeExecution = (e: ExecutionRecord): void => {
    if (counts.has(e.tenant)) counts.set(e.tenant, counts.get(e.tenant)! - 1);
    void executions.remove([e.tenant, e.id]);
    void running.remove([e.tenant, e.id]);
    for (const [f, v] of Object.entries(e.fields ?? {})) void byField.remove([e.tenant, f, v, e.id]);
  };

  return {
    driver: 'lmdb',
    async listWorkflows(tenant) {
      if (tenant === undefined) return [...workflows.getRange({}).map(({ value }) => value)];
      return [...tenantRange(workflows, tenant).map(({ value }) => value)];
    },
    async getWorkflow(tenant, id) {
      return workflows.get([tenant, id]);
    },
    async putWorkflow(record) {
      await workflows.put([record.tenant, record.id], record);
    },
    async deleteWorkflow(tenant, id) {
      return workflows.transaction(() => {
        if (workflows.get([tenant, id]) === undefined) return false;
        void workflows.remove([tenant, id]);
        return true;
      });
    },
    // Writes issued in one event turn commit in one LMDB transaction (lmdb-js eventTurnBatching,
    // on by default), together with the other requests' writes of that turn: an execution's record,
    // running marker and search index entries commit together, and a callback transaction per
    // execution (a commit of its own each) is not needed. The promise resolves once committed,
    // which survives kill -9 (test/plugins/workflow/crash.test.ts).
    async startExecution(record) {
      if (counts.has(record.tenant)) counts.set(record.tenant, counts.get(record.tenant)! + 1);
      started.add(record.id);
      void executions.put([record.tenant, record.id], record);
      await running.put([record.tenant, record.id], null);
    },
    async finishExecution(record) {
      // A record started here is counted already; another is new unless it is stored.
      if (!started.delete(record.id) && counts.has(record.tenant) && !executions.doesExist([record.tenant, record.id]))
        counts.set(record.tenant, counts.get(record.tenant)! + 1);
      const writes = [executions.put([record.tenant, record.id], record), running.remove([record.tenant, record.id])];
      for (const [f, v] of Object.entries(record.fields)) writes.push(byField.put([record.tenant, f, v, record.id], null));
      await Promise.all(writes);
    },
    async getExecution(tenant, id) {
      return executions.get([tenant, id]);
    },
    async queryExecutions(tenant, q) {
      const out: ExecutionRecord[] = [];
      const start = q.cursor ?? '\uffff';
      const fieldEntries = Object.entries(q.fields ?? {});
      let candidates: Iterable<ExecutionRecord | undefined>;
      if (fieldEntries.length > 0) {
        // Walk the index of the first field, newest first; check the rest on the record.
        const [f, v] = fieldEntries[0]!;
        candidates = byField.getKeys({ start: [tenant, f, v, start], end: [tenant, f, v, ''], reverse: true }).map((k) => executions.get([tenant, k[3]]));
      } else {
        candidates = executions.getRange({ start: [tenant, start], end: [tenant, ''], reverse: true }).map(({ value }) => value);
      }
      let more = false;
      for (const e of candidates) {
        if (e === undefined || e.id === q.cursor) continue;
        if (!matchesQuery(e, q)) continue;
        if (out.length === q.limit) {
          more = true;
          break;
        }
        out.push(e);
      }
      return { executions: out, nextCursor: more ? out[out.length - 1]!.id : null };
    },
    async countExecutions(tenant) {
      return countOf(tenant);
    },
    async executionTenants() {
      const out: string[] = [];
      let key: K2 | undefined;
      for (;;) {
        const next = [...executions.getKeys({ start: key ? [key[0], '\uffff'] : undefined, limit: 1 })][0] as K2 | undefined;
        if (!next) break;
        out.push(next[0]);
        key = next;
      }
      return out;
    },
    async markInterrupted(now) {
      const keys = [...running.getKeys({})] as K2[];
      if (keys.length === 0) return 0;
      await store.transaction(() => {
        for (const k of keys) {
          const e = executions.get(k);
          if (e && e.status === 'running')
            void executions.put(k, {
              ...e,
              status: 'interrupted',
              finishedAt: now,
              error: { code: 'interrupted', message: 'the process stopped while this execution was running' },
            });
          void running.remove(k);
        }
      });
      return keys.length;
    },
    async prune(tenant, o: PruneOptions) {
      const cutoff = new Date((o.now ?? Date.now()) - o.maxAgeMs).toISOString();
      const count = countOf(tenant);
      let excess = Math.max(0, count - o.maxCount);
      const victims: ExecutionRecord[] = [];
      for (const { value } of tenantRange(executions, tenant)) {
        if (victims.length >= o.batch) break;
        if (value.status === 'running') continue;
        if (excess > 0 || value.startedAt < cutoff) {
          victims.push(value);
          excess--;
        } else break;
      }
      if (victims.length === 0) return 0;
      await store.transaction(() => victims.forEach(removeExecution));
      return victims.length;
    },
    async putTest(record) {
      await tests.put([record.tenant, record.id], record);
    },
    async getTest(tenant, id) {
      return tests.get([tenant, id]);
    },
    async listTests(tenant, workflow) {
      return [...tenantRange(tests, tenant).map(({ value }) => value)].filter((t) => workflow === undefined || t.workflow === workflow);
    },
    async deleteTest(tenant, id) {
      return tests.transaction(() => {
        if (tests.get([tenant, id]) === undefined) return false;
        void tests.remove([tenant, id]);
        return true;
      });
    },
    async putDeploy(record) {
      await deploys.put([record.tenant, record.id], record);
    },
    async listDeploys(tenant, limit) {
      return [...tenantRange(deploys, tenant, true).map(({ value }) => value)].slice(0, limit);
    },
    sizeBytes() {
      let bytes = 0;
      for (const db of all) {
        const s = db.getStats() as { pageSize: number; treeBranchPageCount: number; treeLeafPageCount: number; overflowPages: number };
        bytes += (s.treeBranchPageCount + s.treeLeafPageCount + s.overflowPages) * s.pageSize;
      }
      return bytes;
    },
    async close() {
      /* the runtime closes the store */
    },
  };
}
