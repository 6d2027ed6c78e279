import { statSync } from 'node:fs';
import { join } from 'node:path';
import { open, type RootDatabase } from 'lmdb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditLog, MAX_AUDIT_PATH, type AuditEntry } from '../../../plugins/rbac/audit.js';
import { tempDir } from '../../helpers/app.js';
import { call, hubListener, startRbac, type RbacApp } from './helpers.js';

describe('denied requests do not grow the audit log without bound', () => {
  let r: RbacApp;
  let base: string;
  let viewer: { secret: string };
  beforeAll(async () => {
    // Search beside rbac: its `DELETE /v1/indexes/:name` takes any path segment and needs index:admin.
    r = await startRbac({ manifest: { listeners: [{ ...hubListener, plugins: ['rbac', 'search'] }] } });
    base = r.t.url('hub');
    viewer = await r.userWithKey('vera', ['viewer']);
  });
  afterAll(() => r.stop());

  it('aggregates 5,000 refusals with 12,000-character paths into a few entries, paths cut at 512 characters', async () => {
    const file = join(r.t.dataDir, 'tessera.mdb');
    const before = statSync(file).size;
    const long = 'x'.repeat(12_000);
    let refused = 0;
    for (let round = 0; round < 50; round++) {
      const answers = await Promise.all(
        Array.from({ length: 100 }, (_, i) => call(base, 'DELETE', `/v1/indexes/${long}${round * 100 + i}`, { key: viewer.secret })),
      );
      refused += answers.filter((a) => a.status === 403).length;
    }
    expect(refused).toBe(5_000);
    const grown = statSync(file).size - before;
    expect(grown).toBeLessThan(2 * 1024 * 1024);
    const denied = (await r.call('GET', '/hub/rbac/audit?action=auth.denied&limit=200')).body.entries;
    // One entry per key, permission and route per minute: one or two (the run may span a minute).
    expect(denied.length).toBeGreaterThanOrEqual(1);
    expect(denied.length).toBeLessThanOrEqual(2);
    expect(denied.reduce((n: number, e: AuditEntry) => n + (e.details.count as number), 0)).toBe(5_000);
    expect(denied[0].details).toMatchObject({ method: 'DELETE', route: '/v1/indexes/:name', permission: 'index:admin', reason: 'permission_denied' });
    expect((denied[0].details.path as string).length).toBeLessThanOrEqual(MAX_AUDIT_PATH + 1);
    // The size is a metric.
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(Number(/^tessera_rbac_audit_entries (\d+)/m.exec(metrics)?.[1])).toBeGreaterThan(0);
    // 5,000 requests: ~5 s alone on two cores, several times that when other suites share them.
  }, 180_000);
});

describe('audit retention', () => {
  let root: RootDatabase;
  let dir: string;
  const log = (retention: { retentionDays: number; maxEntries: number }, name: string): AuditLog =>
    new AuditLog(
      root.openDB({ name: `${name}-audit` }) as never,
      root.openDB({ name: `${name}-meta` }) as never,
      root.openDB({ name: `${name}-order` }) as never,
      retention,
    );
  beforeAll(() => {
    dir = tempDir();
    root = open({ path: join(dir, 'audit.mdb') });
  });
  afterAll(async () => {
    await root.close();
  });

  it('removes the oldest entries past maxEntries, across tenants, in incremental steps', async () => {
    const audit = log({ retentionDays: 90, maxEntries: 100 }, 'max');
    await audit.start();
    for (let i = 0; i < 1_200; i++) await audit.append({ tenant: i % 2 === 0 ? 'acme' : null, action: 'key.created', actor: null, details: { i } });
    while ((await audit.prune()) > 0);
    expect(audit.size()).toBe(100);
    const acme = audit.page('acme', { limit: 200 }).entries.map((e) => e.details.i as number);
    const system = audit.page(null, { limit: 200 }).entries.map((e) => e.details.i as number);
    expect([...acme, ...system].sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, k) => 1_100 + k));
  });

  it('removes entries older than retentionDays', async () => {
    const audit = log({ retentionDays: 1, maxEntries: 1_000_000 }, 'age');
    await audit.start();
    const now = Date.now();
    for (let i = 0; i < 30; i++)
      await audit.append({ tenant: 'acme', action: 'key.created', actor: null, details: { i } }, new Date(now - (i < 20 ? 3 : 0.5) * 86_400_000));
    expect(await audit.prune(now)).toBe(20);
    expect(audit.size()).toBe(10);
    expect(audit.page('acme', { limit: 50 }).entries.every((e) => (e.details.i as number) >= 20)).toBe(true);
  });

  it('builds its order table for a log written before retention existed', async () => {
    const audit = log({ retentionDays: 90, maxEntries: 5 }, 'legacy');
    // Entries as an earlier version stored them: no order table, no count.
    const db = root.openDB<AuditEntry, [string, number]>({ name: 'legacy-audit' });
    for (let seq = 1; seq <= 12; seq++) {
      await db.put(['acme', seq], {
        id: String(seq),
        at: new Date().toISOString(),
        tenant: 'acme',
        action: 'key.created',
        actor: null,
        target: null,
        ip: null,
        requestId: null,
        details: {},
      });
    }
    await audit.start();
    expect(audit.size()).toBe(5);
    expect(audit.page('acme', { limit: 20 }).entries.map((e) => e.id)).toEqual(['12', '11', '10', '9', '8']);
  });
});
