import { createHash } from 'node:crypto';
import { eventStreamResponse, sortableId, z, type PluginContext } from 'tessera-runtime/plugin';
import { inspectTable, knexConfig, openDatabase } from './database-source.js';
import { errors } from './errors.js';
import type { ScannerOptions } from './options.js';
import { redactConnection, scrub, secretsOf } from './redact.js';
import type { Roots } from './roots.js';
import { emptyCounts, finalScanStates, publicScan, type ScanRecord, type ScanType } from './scan-record.js';
import type { ScanRunner } from './scan-runner.js';
import type { ScanStore } from './scan-store.js';

const indexName = z.string().min(1).max(200);
const destination = {
  /** A remote engine's base URL; absent: the search plugin of this runtime. */
  engineUrl: z.url({ protocol: /^https?$/ }).optional(),
  /** Where the remote bulk API is served, when not on `engineUrl` (the fleet's bulk indexer, port 3852). */
  bulkUrl: z.url({ protocol: /^https?$/ }).optional(),
};

export const folderScanBody = z.strictObject({
  path: z.string().min(1),
  targetIndex: indexName,
  ...destination,
  watch: z.boolean().default(false),
  include: z.array(z.string().min(1)).max(100).optional(),
  exclude: z.array(z.string().min(1)).max(100).optional(),
});

export const fileScanBody = z.strictObject({
  path: z.string().min(1),
  format: z.enum(['jsonl', 'csv']).default('jsonl'),
  targetIndex: indexName,
  idField: z.string().min(1).optional(),
  ...destination,
});

export const databaseScanBody = z.strictObject({
  driver: z.enum(['sqlite', 'postgres', 'mysql', 'generic_sql']),
  connection: z.union([z.string().min(1), z.record(z.string(), z.unknown())]),
  table: z.string().min(1).max(200),
  watermarkColumn: z.string().min(1).max(200),
  targetIndex: indexName,
  primaryKey: z.string().min(1).max(200).optional(),
  pollIntervalMs: z.number().int().min(10).max(86_400_000).optional(),
  pageSize: z.number().int().min(1).max(100_000).optional(),
  /** Keep polling after catching up. @default true */
  watch: z.boolean().default(true),
  ...destination,
});

const listQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(1000).default(50),
  cursor: z.string().min(1).optional(),
});

const finalEventTypes = new Set(['scan.completed', 'scan.failed', 'scan.stopped']);

export interface RouteDeps {
  store: ScanStore;
  runner: ScanRunner;
  roots: Roots;
}

export function registerRoutes(ctx: PluginContext<ScannerOptions>, deps: RouteDeps): void {
  const { store, runner, roots } = deps;
  const tags = ['scanner'];

  const checkEngine = (body: { engineUrl?: string | undefined; bulkUrl?: string | undefined }): void => {
    for (const url of [body.engineUrl, body.bulkUrl]) {
      if (url === undefined) continue;
      const verdict = ctx.outbound.check(url, { allowPrivate: ctx.config.allowPrivateAddresses, allowHosts: ctx.config.allowHosts });
      if (!verdict.allowed) throw errors.engine_url_not_allowed({ url, reason: verdict.reason });
    }
  };

  const sourceKey = (type: ScanType, source: string, targetIndex: string, engineUrl: string | undefined): string =>
    createHash('sha256')
      .update([type, source, targetIndex, engineUrl ?? 'in-process'].join('\u0000'))
      .digest('hex')
      .slice(0, 32);

  /** Stores the record and queues its job; the answer is immediate, the work runs in the background. */
  const start = async (tenant: string, type: ScanType, input: Record<string, unknown>, targetIndex: string, key: string, secret?: unknown) => {
    const active = store.activeOn(tenant, key);
    if (active) throw errors.scan_already_active({ id: active.id, index: targetIndex });
    const now = new Date().toISOString();
    const record: ScanRecord = {
      id: sortableId('scan_'),
      type,
      state: 'queued',
      targetIndex,
      destination: (input.engineUrl as string | undefined) ?? 'in-process',
      input,
      counts: emptyCounts(),
      progress: { unit: type === 'file' ? 'bytes' : type === 'database' ? 'rows' : 'files', done: 0 },
      createdAt: now,
      startedAt: null,
      finishedAt: null,
      updatedAt: now,
      error: null,
      retry: null,
      sourceKey: key,
      jobId: null,
      ...(type === 'database' ? { watermark: null } : {}),
    };
    await store.transaction(() => {
      void store.put(tenant, record);
      if (secret !== undefined) void store.secrets(tenant).put(record.id, { connection: secret });
    });
    await ctx.events.forTenant(tenant).append('scan.queued', publicScan(record), { subject: record.id });
    await ctx.jobs.tenant(tenant).enqueue('scan', { scanId: record.id }, { key: record.id });
    return { scanId: record.id, state: record.state };
  };

  const find = (tenant: string, id: string): ScanRecord => {
    const record = store.get(tenant, id);
    if (!record) throw errors.scan_not_found({ id });
    return record;
  };

  ctx.routes.add({
    method: 'GET',
    path: '/v1/scans',
    permission: 'search:read',
    throttle: 'light',
    query: listQuery,
    summary: 'Active and historical scans, newest first, paged (`limit`, `cursor` = the `next` of the previous page)',
    tags,
    handler: ({ tenant, query }) => {
      const page = store.list(tenant, query.limit, query.cursor);
      return { scans: page.scans.map(publicScan), ...(page.next ? { next: page.next } : {}) };
    },
  });

  ctx.routes.add({
    method: 'POST',
    path: '/v1/scans/folder',
    permission: 'index:admin',
    body: folderScanBody,
    summary: 'Scan a folder (SHA-256 fingerprints, diff against the last scan); `watch: true` keeps applying changes',
    tags,
    async handler({ tenant, body }) {
      const realPath = roots.resolve(body.path, 'folder');
      checkEngine(body);
      const key = sourceKey('folder', realPath, body.targetIndex, body.engineUrl);
      return start(tenant, 'folder', { ...body, realPath }, body.targetIndex, key);
    },
  });

  ctx.routes.add({
    method: 'POST',
    path: '/v1/scans/file',
    permission: 'index:admin',
    body: fileScanBody,
    summary: 'Stream a JSONL or CSV file into an index in batches; bad lines are counted and listed',
    tags,
    async handler({ tenant, body }) {
      const realPath = roots.resolve(body.path, 'file');
      checkEngine(body);
      const key = sourceKey('file', realPath, body.targetIndex, body.engineUrl);
      return start(tenant, 'file', { ...body, realPath }, body.targetIndex, key);
    },
  });

  ctx.routes.add({
    method: 'POST',
    path: '/v1/scans/database',
    permission: 'index:admin',
    body: databaseScanBody,
    summary: 'Poll a SQL table by its watermark column (ties broken by primary key) into an index',
    tags,
    async handler({ tenant, body, log }) {
      checkEngine(body);
      const secrets = secretsOf(body.connection);
      const config = knexConfig(body.driver, body.connection, roots, (level, message) => log[level](scrub(message, secrets)));
      // Check the table and columns now, so a typo is a 400 rather than a failed scan. A database
      // that cannot be reached is not the request's fault: the scan starts and says so.
      const db = openDatabase(config);
      try {
        await inspectTable(db, body.table, body.watermarkColumn, body.primaryKey);
      } catch (err) {
        const code = (err as { code?: string }).code;
        if (code === 'table_not_found' || code === 'column_not_found' || code === 'primary_key_required') throw err;
        log.info({ error: scrub((err as Error).message, secrets) }, 'database not reachable at scan creation; the scan will report it');
      } finally {
        await db.destroy().catch(() => undefined);
      }
      const location = typeof body.connection === 'string' ? body.connection : JSON.stringify(redactConnection(body.connection));
      const key = sourceKey('database', `${body.driver}\u0000${scrub(location, secrets)}\u0000${body.table}`, body.targetIndex, body.engineUrl);
      const input = { ...body, connection: redactConnection(body.connection) };
      return start(tenant, 'database', input, body.targetIndex, key, body.connection);
    },
  });

  ctx.routes.add({
    method: 'GET',
    path: '/v1/scans/:id',
    permission: 'search:read',
    throttle: 'light',
    summary: 'One scan: state, counts, progress, error and its inputs (credentials redacted)',
    tags,
    handler: ({ tenant, params }) => ({ scan: publicScan(find(tenant, params.id!)) }),
  });

  ctx.routes.add({
    method: 'GET',
    path: '/v1/scans/:id/events',
    permission: 'search:read',
    produces: 'text/event-stream',
    summary: 'Server-Sent Events of one scan: state changes, progress and (while watching) each change; ends with the final state',
    tags,
    handler(request) {
      find(request.tenant, request.params.id!);
      return eventStreamResponse(request, ctx.events.forTenant(request.tenant), {
        filter: { subject: request.params.id!, types: ['scan.*'] },
        endAfter: (event) => finalEventTypes.has(event.type),
      });
    },
  });

  ctx.routes.add({
    method: 'DELETE',
    path: '/v1/scans/:id',
    permission: 'index:admin',
    summary: 'Stop a scan (a watch, a poll, or a queued or running pass); its record stays in the history',
    tags,
    async handler({ tenant, params }) {
      const record = find(tenant, params.id!);
      if (finalScanStates.has(record.state)) return { scan: publicScan(record) };
      const job = runner.jobOf(tenant, record);
      if (job) await ctx.jobs.tenant(tenant).cancel(job.id);
      // A job cancelled before it ran never saw its record: mark it here.
      const after = store.get(tenant, record.id)!;
      if (!finalScanStates.has(after.state)) {
        const now = new Date().toISOString();
        const stopped: ScanRecord = { ...after, state: 'stopped', finishedAt: now, updatedAt: now, retry: null };
        await store.put(tenant, stopped);
        await store.secrets(tenant).remove(record.id);
        await ctx.events.forTenant(tenant).append('scan.stopped', publicScan(stopped), { subject: record.id });
        return { scan: publicScan(stopped) };
      }
      return { scan: publicScan(after) };
    },
  });
}
