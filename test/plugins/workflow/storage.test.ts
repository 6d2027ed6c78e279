import { rmSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { defineConformance } from 'tessera-runtime/testing';
import { Store } from '../../../runtime/store.js';
import { lmdbStorage } from '../../../plugins/workflow/storage-lmdb.js';
import { sqliteStorage } from '../../../plugins/workflow/storage-sqlite.js';
import type { ExecutionRecord, WorkflowStorage } from '../../../plugins/workflow/storage.js';
import { tempDir } from '../../helpers/app.js';

const exec = (tenant: string, id: string, extra: Partial<ExecutionRecord> = {}): ExecutionRecord => ({
  tenant,
  id,
  workflow: 'orders',
  workflowVersion: '1',
  status: 'completed',
  startedAt: new Date().toISOString(),
  attrs: { tenant },
  fields: {},
  steps: [
    {
      id: 's',
      kind: 'map',
      status: 'completed',
      startedAt: new Date().toISOString(),
      queueWaitMs: 0,
      durationMs: 1,
      attempts: 1,
      output: { x: 'y'.repeat(500) },
    },
  ],
  ...extra,
});

const conformance = defineConformance<WorkflowStorage>('workflow storage', {
  'keeps workflows per tenant': async (s) => {
    const spec = { name: 'a', version: '1', route: { method: 'POST' as const, path: '/a' }, searchFields: [], tags: [], steps: [] };
    const rec = {
      tenant: 't1',
      id: 'a',
      name: 'a',
      version: '1',
      route: spec.route,
      tags: [],
      searchFields: [],
      spec,
      source: 'hub' as const,
      createdAt: 'x',
      updatedAt: 'x',
    };
    await s.putWorkflow(rec);
    await s.putWorkflow({ ...rec, tenant: 't2' });
    expect(await s.getWorkflow('t1', 'a')).toEqual(rec);
    expect((await s.listWorkflows('t1')).map((w) => w.tenant)).toEqual(['t1']);
    expect(await s.listWorkflows()).toHaveLength(2);
    expect(await s.deleteWorkflow('t1', 'a')).toBe(true);
    expect(await s.deleteWorkflow('t1', 'a')).toBe(false);
    expect(await s.getWorkflow('t2', 'a')).toBeDefined();
  },
  'stores executions with timelines, searches them newest first and pages': async (s) => {
    for (let i = 0; i < 5; i++)
      await s.finishExecution(exec('t1', `ex${i}`, { fields: { customer: i % 2 ? 'odd' : 'even' }, status: i === 4 ? 'failed' : 'completed' }));
    await s.finishExecution(exec('t2', 'ex9', { fields: { customer: 'even' } }));
    const even = await s.queryExecutions('t1', { fields: { customer: 'even' }, limit: 10 });
    expect(even.executions.map((e) => e.id)).toEqual(['ex4', 'ex2', 'ex0']);
    expect((await s.queryExecutions('t1', { status: 'failed', limit: 10 })).executions.map((e) => e.id)).toEqual(['ex4']);
    const p1 = await s.queryExecutions('t1', { limit: 2 });
    expect(p1.executions.map((e) => e.id)).toEqual(['ex4', 'ex3']);
    const p2 = await s.queryExecutions('t1', { limit: 2, cursor: p1.nextCursor! });
    expect(p2.executions.map((e) => e.id)).toEqual(['ex2', 'ex1']);
    expect((await s.getExecution('t1', 'ex0'))!.steps[0]!.output).toEqual({ x: 'y'.repeat(500) });
    expect(await s.getExecution('t2', 'ex0')).toBeUndefined();
    expect((await s.executionTenants()).sort()).toEqual(['t1', 't2']);
  },
  'marks running executions interrupted': async (s) => {
    await s.startExecution(exec('t1', 'ex1', { status: 'running' }));
    await s.finishExecution(exec('t1', 'ex2'));
    expect(await s.markInterrupted('now')).toBe(1);
    expect((await s.getExecution('t1', 'ex1'))!.status).toBe('interrupted');
    expect((await s.getExecution('t1', 'ex2'))!.status).toBe('completed');
  },
  'prunes by count and age, oldest first, and drops their index entries': async (s) => {
    const old = new Date(Date.now() - 10 * 86_400_000).toISOString();
    for (let i = 0; i < 10; i++) await s.finishExecution(exec('t1', `ex${i}`, { startedAt: i < 2 ? old : new Date().toISOString(), fields: { c: 'v' } }));
    expect(await s.prune('t1', { maxAgeMs: 86_400_000, maxCount: 100, batch: 100 })).toBe(2);
    expect(await s.prune('t1', { maxAgeMs: 86_400_000, maxCount: 5, batch: 100 })).toBe(3);
    expect(await s.countExecutions('t1')).toBe(5);
    expect((await s.queryExecutions('t1', { fields: { c: 'v' }, limit: 100 })).executions.map((e) => e.id)).toEqual(['ex9', 'ex8', 'ex7', 'ex6', 'ex5']);
  },
  'stops growing under a steady load with retention on': async (s) => {
    const sizes: number[] = [];
    let n = 0;
    for (let round = 0; round < 6; round++) {
      for (let i = 0; i < 200; i++) await s.finishExecution(exec('t1', `ex${String(n++).padStart(6, '0')}`, { fields: { c: String(i % 7) } }));
      while ((await s.prune('t1', { maxAgeMs: 86_400_000, maxCount: 200, batch: 500 })) > 0);
      sizes.push(s.sizeBytes());
    }
    expect(await s.countExecutions('t1')).toBe(200);
    // After warm-up the size stays flat: freed pages are reused.
    expect(Math.max(...sizes.slice(2))).toBeLessThanOrEqual(sizes[1]! * 1.3);
  },
  'commits the writes of many executions in one turn, each readable once its promise resolves': async (s) => {
    const ids = Array.from({ length: 30 }, (_, i) => `ex${String(i).padStart(2, '0')}`);
    await Promise.all(
      ids.map(async (id, i) => {
        void s.startExecution(exec('t1', id, { status: 'running', steps: [] }));
        await s.finishExecution(exec('t1', id, { fields: { c: String(i % 3) } }));
        expect((await s.getExecution('t1', id))!.status).toBe('completed');
      }),
    );
    expect(await s.countExecutions('t1')).toBe(30);
    expect((await s.queryExecutions('t1', { status: 'running', limit: 100 })).executions).toEqual([]);
    const ones = await s.queryExecutions('t1', { fields: { c: '1' }, limit: 100 });
    expect(ones.executions.map((e) => e.id)).toEqual(ids.filter((_, i) => i % 3 === 1).reverse());
    expect(await s.markInterrupted('now')).toBe(0);
  },
  'keeps tests and deploy records per tenant': async (s) => {
    const t = { tenant: 't1', id: 'test1', name: 'n', workflow: 'orders', input: {}, fixtures: {}, expected: {}, ignore: [], createdAt: 'x' };
    await s.putTest(t);
    expect(await s.listTests('t1')).toEqual([t]);
    expect(await s.listTests('t2')).toEqual([]);
    expect(await s.deleteTest('t1', 'test1')).toBe(true);
    await s.putDeploy({ tenant: 't1', id: 'p1', hash: 'h', kind: 'plan', at: 'x', summary: {} });
    expect(await s.listDeploys('t1', 10)).toHaveLength(1);
    expect(await s.listDeploys('t2', 10)).toHaveLength(0);
  },
});

const cleanups: Array<() => Promise<void>> = [];
conformance(
  'lmdb',
  () => {
    const dir = tempDir();
    const store = Store.open(dir);
    cleanups.push(async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    });
    return lmdbStorage(store.namespace('workflow'));
  },
  {
    teardown: async () => {
      for (const c of cleanups.splice(0)) await c();
    },
  },
);
conformance(
  'sqlite',
  () => {
    const dir = tempDir();
    const s = sqliteStorage(path.join(dir, 'workflows.db'));
    cleanups.push(async () => {
      await s.close();
      rmSync(dir, { recursive: true, force: true });
    });
    return s;
  },
  {
    teardown: async () => {
      for (const c of cleanups.splice(0)) await c();
    },
  },
);

describe('sqlite workflow storage: group commit', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const open = () => {
    const dir = tempDir();
    dirs.push(dir);
    return { file: path.join(dir, 'workflows.db'), s: sqliteStorage(path.join(dir, 'workflows.db')) };
  };

  it('fails only the write that cannot be stored when the rest of its batch can', async () => {
    const { s } = open();
    const results = await Promise.allSettled([
      s.finishExecution(exec('t1', 'good1')),
      s.finishExecution({ ...exec('t1', 'bad'), tenant: undefined as unknown as string }),
      s.finishExecution(exec('t1', 'good2')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((await s.queryExecutions('t1', { limit: 10 })).executions.map((e) => e.id)).toEqual(['good2', 'good1']);
    expect(await s.countExecutions('t1')).toBe(2);
    await s.close();
  });

  it('opens a file made before the running and search-field indexes, and uses them', async () => {
    const { file, s: fresh } = open();
    await fresh.close();
    const raw = new Database(file);
    raw.exec(`DROP INDEX executions_running; DROP INDEX execution_fields_id; CREATE INDEX executions_status ON executions (status);`);
    const e = exec('t1', 'ex1', { status: 'running', steps: [] });
    raw
      .prepare('INSERT INTO executions (tenant, id, workflow, status, started_at, json) VALUES (?, ?, ?, ?, ?, ?)')
      .run('t1', 'ex1', 'orders', 'running', e.startedAt, JSON.stringify(e));
    raw.close();
    const s = sqliteStorage(file);
    expect(await s.markInterrupted('now')).toBe(1);
    expect((await s.getExecution('t1', 'ex1'))!.status).toBe('interrupted');
    await s.close();
    const check = new Database(file, { readonly: true });
    const indexes = (
      check.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as Array<{ name: string }>
    ).map((r) => r.name);
    const plan = (
      check.prepare('EXPLAIN QUERY PLAN DELETE FROM execution_fields WHERE tenant = ? AND id = ?').all('t1', 'ex1') as Array<{ detail: string }>
    ).map((r) => r.detail);
    check.close();
    expect(indexes).toEqual(['execution_fields_id', 'executions_running']);
    expect(plan).toEqual(['SEARCH execution_fields USING INDEX execution_fields_id (tenant=? AND id=?)']);
  });

  it('commits the writes still queued when closed', async () => {
    const first = open();
    const written = first.s.finishExecution(exec('t1', 'ex1', { fields: { c: 'v' } }));
    await first.s.close();
    await written;
    const again = sqliteStorage(first.file);
    expect((await again.getExecution('t1', 'ex1'))!.status).toBe('completed');
    expect((await again.queryExecutions('t1', { fields: { c: 'v' }, limit: 10 })).executions.map((e) => e.id)).toEqual(['ex1']);
    await again.close();
  });
});
