/**
 * The workflow plugin's storage interface: workflows, executions with their step timelines,
 * regression tests and deploy records, every record keyed by tenant. Two drivers pass the same
 * conformance suite (test/plugins/workflow/storage.test.ts): LMDB in the runtime's store (the
 * default) and SQLite (better-sqlite3) when the `dbPath` option names a `.db`/`.sqlite` file.
 */
import type { StepRecord } from './engine.js';
import type { WorkflowSpec } from './spec.js';

export interface WorkflowRecord {
  tenant: string;
  id: string;
  name: string;
  version: string;
  route: { method: string; path: string };
  tags: string[];
  searchFields: string[];
  spec: WorkflowSpec;
  /** `hub` (created over HTTP) or `file` (loaded from the `workflows` option). */
  source: 'hub' | 'file';
  createdAt: string;
  updatedAt: string;
}

export type ExecutionStatus = 'running' | 'completed' | 'failed' | 'interrupted' | 'rejected';

export interface ExecutionRecord {
  tenant: string;
  id: string;
  workflow: string;
  workflowVersion: string;
  status: ExecutionStatus;
  startedAt: string;
  finishedAt?: string;
  durationMs?: number;
  attrs: Record<string, unknown>;
  /** The searchFields values, as strings, for trace search. */
  fields: Record<string, string>;
  input?: unknown;
  output?: unknown;
  steps: StepRecord[];
  error?: { stepId?: string; code: string; message: string };
  /** Paths whose stored value was cut to the size cap. */
  truncated?: string[];
}

export interface TestRecord {
  tenant: string;
  id: string;
  name: string;
  workflow: string;
  input: unknown;
  attrs?: Record<string, unknown>;
  /** Step outputs pinned by step id. */
  fixtures: Record<string, unknown>;
  expected: unknown;
  /** JSON paths (`$.at`, `$.items[0].id`) not compared. */
  ignore: string[];
  fromTrace?: string;
  createdAt: string;
}

export interface DeployRecord {
  tenant: string;
  id: string;
  hash: string;
  kind: 'plan' | 'export';
  at: string;
  summary: Record<string, unknown>;
}

export interface TraceQuery {
  workflow?: string;
  status?: ExecutionStatus;
  /** ISO 8601 bounds on startedAt, inclusive. */
  from?: string;
  to?: string;
  /** searchFields values that must all match. */
  fields?: Record<string, string>;
  limit: number;
  /** The last id of the previous page. */
  cursor?: string;
}

export interface PruneOptions {
  maxAgeMs: number;
  maxCount: number;
  /** Most executions deleted in one call. */
  batch: number;
  now?: number;
}

export interface WorkflowStorage {
  readonly driver: 'lmdb' | 'sqlite';
  listWorkflows(tenant?: string): Promise<WorkflowRecord[]>;
  getWorkflow(tenant: string, id: string): Promise<WorkflowRecord | undefined>;
  putWorkflow(record: WorkflowRecord): Promise<void>;
  deleteWorkflow(tenant: string, id: string): Promise<boolean>;
  /** Records a running execution (so a crash leaves a trace to mark interrupted). */
  startExecution(record: ExecutionRecord): Promise<void>;
  /** Writes the final execution and its timeline in one transaction. */
  finishExecution(record: ExecutionRecord): Promise<void>;
  getExecution(tenant: string, id: string): Promise<ExecutionRecord | undefined>;
  /** Newest first. */
  queryExecutions(tenant: string, query: TraceQuery): Promise<{ executions: ExecutionRecord[]; nextCursor: string | null }>;
  countExecutions(tenant: string): Promise<number>;
  /** Tenants that hold executions. */
  executionTenants(): Promise<string[]>;
  /** Marks every execution still `running` as `interrupted`; returns how many. */
  markInterrupted(now: string): Promise<number>;
  /** Deletes executions older than maxAgeMs and beyond maxCount (oldest first), at most `batch`. */
  prune(tenant: string, options: PruneOptions): Promise<number>;
  putTest(record: TestRecord): Promise<void>;
  getTest(tenant: string, id: string): Promise<TestRecord | undefined>;
  listTests(tenant: string, workflow?: string): Promise<TestRecord[]>;
  deleteTest(tenant: string, id: string): Promise<boolean>;
  putDeploy(record: DeployRecord): Promise<void>;
  listDeploys(tenant: string, limit: number): Promise<DeployRecord[]>;
  /** Bytes the driver's data occupies (LMDB: pages of its databases; SQLite: the file's used pages). */
  sizeBytes(): number;
  close(): Promise<void>;
}

export function matchesQuery(e: ExecutionRecord, q: TraceQuery): boolean {
  if (q.workflow !== undefined && e.workflow !== q.workflow) return false;
  if (q.status !== undefined && e.status !== q.status) return false;
  if (q.from !== undefined && e.startedAt < q.from) return false;
  if (q.to !== undefined && e.startedAt > q.to) return false;
  if (q.fields) for (const [k, v] of Object.entries(q.fields)) if (e.fields[k] !== v) return false;
  return true;
}
