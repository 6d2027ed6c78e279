/**
 * In-process storage cost: the CPU time (all threads of this process) one execution's writes take
 * on a workflow storage driver, without HTTP. Executions arrive as the server makes them under 50
 * connections: 50 at a time, each recorded `running` and then finished with its 3-step timeline
 * (the bench's q3 workflow, run once by the engine for a real record), with the service's inline
 * retention (a prune pass every 100 executions, 10,000 kept, 500 at most per pass). The store is
 * filled past the retention cap first, so every timed execution also pays for pruning one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runWorkflow } from '../../plugins/workflow/engine.js';
import { lmdbStorage } from '../../plugins/workflow/storage-lmdb.js';
import { sqliteStorage } from '../../plugins/workflow/storage-sqlite.js';
import type { ExecutionRecord, WorkflowStorage } from '../../plugins/workflow/storage.js';
import type { WorkflowSpec } from '../../plugins/workflow/spec.js';
import { Store } from '../../runtime/store.js';

const lanes = 50;
const retention = { maxAgeMs: 7 * 86_400_000, maxCount: 10_000, batch: 500 };

export async function timeStorage(
  driver: 'lmdb' | 'sqlite',
  spec: Pick<WorkflowSpec, 'steps'>,
  executions: number,
): Promise<{ cpuUsPerExecution: number; wallUsPerExecution: number; stored: number }> {
  const input = { customer: 'ann', amount: 150 };
  const attrs = { tenant: 'default' };
  const outcome = await runWorkflow(spec, { input, attrs, maxDurationMs: 30_000 });
  if (outcome.status !== 'completed' || outcome.steps.length !== 3) throw new Error(`q3 did not complete: ${JSON.stringify(outcome)}`);
  const dir = mkdtempSync(path.join(tmpdir(), 'tessera-bench-wf-storage-'));
  const store = driver === 'lmdb' ? Store.open(dir) : undefined;
  const storage: WorkflowStorage = store ? lmdbStorage(store.namespace('workflow')) : sqliteStorage(path.join(dir, 'wf.db'));
  let seq = 0;
  let sincePrune = 0;
  const one = async (): Promise<void> => {
    const startedAt = new Date().toISOString();
    const running: ExecutionRecord = {
      tenant: 'default',
      id: `ex${Date.now().toString(36)}${String(seq++).padStart(9, '0')}`,
      workflow: 'q3',
      workflowVersion: '1',
      status: 'running',
      startedAt,
      attrs,
      fields: { customer: 'ann' },
      steps: [],
    };
    void storage.startExecution(running);
    await Promise.resolve();
    const finishedAt = new Date().toISOString();
    await storage.finishExecution({ ...running, status: 'completed', finishedAt, durationMs: 0.2, input, output: outcome.output, steps: outcome.steps });
    if (++sincePrune >= 100) {
      sincePrune = 0;
      await storage.prune('default', retention);
    }
  };
  const run = async (n: number): Promise<void> => {
    for (let i = 0; i < n; i += lanes) await Promise.all(Array.from({ length: lanes }, one));
  };
  try {
    await run(retention.maxCount + 2_000);
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await run(executions);
    const cpu = process.cpuUsage(cpu0);
    const wallMs = performance.now() - t0;
    const stored = await storage.countExecutions('default');
    const [last] = (await storage.queryExecutions('default', { limit: 1 })).executions;
    if (stored !== retention.maxCount || last?.status !== 'completed' || last.steps.length !== 3)
      throw new Error(`${driver}: ${stored} stored, last ${JSON.stringify(last)}`);
    return { cpuUsPerExecution: (cpu.user + cpu.system) / executions, wallUsPerExecution: (wallMs * 1000) / executions, stored };
  } finally {
    await storage.close();
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
