import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queueKeyFile } from '../../../plugins/agent/worker/queue.js';
import { tempDir } from '../../helpers/app.js';
import { runCli, type CliProcess } from '../../helpers/cli.js';
import { ForgeServer } from './forge-server.js';
import { gitRaw, makeRepo, type Fixture } from './git-fixture.js';
import { until } from './playbooks-support.js';
import { startProviderServer, type ModelListServer } from './provider-server.js';
import { startTenantService, type TenantService } from './tenant-service.js';
import { diffOf, scriptProvider, statesOf, type TicketScript } from './ticket-support.js';

const TENANT_KEY = 'sk-tenant-a-7Qm2xV9wLr41';
const OPERATOR_KEY = 'sk-operator-Zt8pK3nH6c02';
const slug = "export function slugify(title) {\n  return title.toLowerCase().replace(/ /g, '-');\n}\n";
const fixedSlug = "export function slugify(title) {\n  return title\n    .toLowerCase()\n    .replace(/[^a-z0-9]+/g, '-')\n    .replace(/^-|-$/g, '');\n}\n";

/** Every file under `dir` (recursively) whose bytes contain `needle`. */
function filesContaining(dir: string, needle: string): string[] {
  const found: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && readFileSync(p).includes(needle)) found.push(p);
    }
  };
  walk(dir);
  return found;
}

/**
 * A `tessera worker` CLI process runs ticket jobs with the tenant settings the service put on the
 * queue: the provider key set through `POST /api/v1/models/config` on the service (sealed with the
 * queue's key on the way, opened in the worker's memory only), the tenant's custom catalogue
 * model, and, for tenants without a key, the operator's key from the worker's own environment
 * (`apiKeyEnv`) where `apiKeyTenants` allows it.
 */
describe('tenant settings travel to a `tessera worker` process', () => {
  let root: string;
  let fx: Fixture;
  let forge: ForgeServer;
  let provider: ModelListServer;
  let service: TenantService;
  let worker: CliProcess;
  const scripts = new Map<string, TicketScript>();
  const chatAuth = () => provider.requests.filter((r) => r.path === '/api/v1/chat/completions').map((r) => r.authorization);

  beforeAll(async () => {
    root = tempDir('tessera-worker-settings-');
    fx = makeRepo('acme', 'web', {
      'lib/slug.mjs': slug,
      'test/slug.test.mjs':
        "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { slugify } from '../lib/slug.mjs';\n\ntest('drops punctuation', () => {\n  assert.equal(slugify('Hello,  World!'), 'hello-world');\n});\n",
    });
    forge = await new ForgeServer('ghp_w').start();
    forge.addRepo('acme/web', fx.bare);
    provider = await startProviderServer();
    scriptProvider(provider, scripts);
    const patch = diffOf(fx.work, { 'lib/slug.mjs': fixedSlug });
    for (const id of ['K-1', 'K-2', 'K-3'])
      scripts.set(id, { triage: [{ actionable: true, summary: 'slugify keeps punctuation', files: ['lib/slug.mjs'] }], patches: [patch] });
    const queueDir = path.join(root, 'queue');
    const shared = {
      baseUrl: provider.baseUrl,
      reposRoot: fx.reposRoot,
      forge: { baseUrl: forge.url, token: 'ghp_w' },
      workspaces: { refreshSeconds: 0 },
      apiKeyEnv: 'TESSERA_TEST_OPERATOR_KEY',
      apiKeyTenants: ['tenant-a', 'tenant-c'],
    };
    // The service's own environment has no operator key: only the worker's has.
    delete process.env.TESSERA_TEST_OPERATOR_KEY;
    service = await startTenantService(
      { ...shared, workers: { queueDir, tiers: [8], pollMs: 50 } },
      ['tenant-a', 'tenant-b', 'tenant-c'],
      path.join(root, 'service'),
    );
    const manifest = path.join(root, 'worker.json');
    writeFileSync(
      manifest,
      JSON.stringify({
        name: 'agent-service',
        dataDir: './service',
        listeners: [{ name: 'agent', port: 8000, plugins: ['agent'] }],
        plugins: { search: {}, graph: {}, agent: { options: { ...shared, workers: { queueDir, pollMs: 50, leaseMs: 10_000 } } } },
      }),
    );
    worker = runCli(['worker', '--manifest', manifest, '--tiers', '8', '--worker-id', 'pod-keys-0', '--data-dir', path.join(root, 'worker')], {
      env: { TESSERA_TEST_OPERATOR_KEY: OPERATOR_KEY },
    });
    await worker.waitForLog((l) => l.msg === 'agent worker takes jobs from the shared queue', 30_000);
  });
  afterAll(async () => {
    worker?.child.kill('SIGTERM');
    await worker?.exited;
    await service?.app.stop();
    await forge?.stop();
    await provider?.close();
  });

  const remediate = (tenant: string, ticketId: string) =>
    service.call(tenant, 'POST', '/api/v1/agent/remediate', {
      repo: 'acme/web',
      tier: 8,
      ticket: { ticket_id: ticketId, title: 'Slugs keep punctuation', description: 'slugify("Hello,  World!") should be hello-world' },
    });

  it("runs a tenant's ticket job on the worker process with the key and custom model set on the service", async () => {
    expect((await service.call('tenant-a', 'POST', '/api/v1/models/config', { apiKey: TENANT_KEY })).status).toBe(200);
    const custom = { id: 'acme/house-architect', tier: 8, pricing: { promptPer1M: 0.01, completionPer1M: 0.02 } };
    expect((await service.call('tenant-a', 'POST', '/api/v1/models/catalog', custom)).status).toBe(201);
    const res = await remediate('tenant-a', 'K-1');
    expect(res.status).toBe(202);
    const done = await service.final('tenant-a', res.body.jobId);
    expect(statesOf(done)).toEqual(['queued', 'triaging', 'planning', 'patching', 'testing', 'proposing', 'completed']);
    expect(done).toMatchObject({ tests: { passed: true }, pullRequest: { number: expect.any(Number) } });
    expect(gitRaw(fx.bare, 'show', `${done.commit}:lib/slug.mjs`)).toBe(fixedSlug);
    // Every model call went out with the tenant's own key (it wins over the operator's, which
    // tenant-a may use); the patching calls of tier 8 to the tenant's custom model (the cheapest of
    // its tier, kept only in the service's store), the triage call to its role's tier.
    expect(chatAuth().length).toBeGreaterThanOrEqual(2);
    expect(new Set(chatAuth())).toEqual(new Set([`Bearer ${TENANT_KEY}`]));
    const patching = provider.chats.filter((c) => !String(c.body.messages[0]?.content).includes('triage and clarity agent'));
    expect(patching.length).toBeGreaterThanOrEqual(1);
    expect(new Set(patching.map((c) => c.model))).toEqual(new Set([custom.id]));
  });

  it('fails a tenant with no key of its own and outside apiKeyTenants with provider_not_configured, calling no model', async () => {
    const before = chatAuth().length;
    const res = await remediate('tenant-b', 'K-2');
    const done = await service.final('tenant-b', res.body.jobId);
    expect([done.state, done.error.code]).toEqual(['failed', 'provider_not_configured']);
    expect(chatAuth().length).toBe(before);
    // The dead letter is written when the service's job fails (just after the job's record says so).
    const dlq = await until(async () => {
      const records = (await service.call('tenant-b', 'GET', '/api/v1/telemetry/dlq')).body.records as any[];
      return records.length > 0 ? records : undefined;
    });
    expect(dlq.map((r: any) => [r.jobName, r.error.code])).toEqual([['ticket', 'provider_not_configured']]);
  });

  it("uses the operator's key (apiKeyEnv, from the worker's environment) for a tenant apiKeyTenants allows", async () => {
    const view = (await service.call('tenant-c', 'GET', '/api/v1/models/config')).body.config;
    // The service's environment has no such variable: it offers no key of its own to tenant-c.
    expect(view.apiKey).toEqual({ configured: false });
    const before = chatAuth().length;
    const res = await remediate('tenant-c', 'K-3');
    const done = await service.final('tenant-c', res.body.jobId);
    expect(done.state).toBe('completed');
    const calls = chatAuth().slice(before);
    expect(calls.length).toBeGreaterThanOrEqual(2);
    expect(new Set(calls)).toEqual(new Set([`Bearer ${OPERATOR_KEY}`]));
  });

  it('never writes a plain key into the queue, the worker store, its workspaces or its logs', () => {
    const keyFile = path.join(root, 'queue', queueKeyFile);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    for (const key of [TENANT_KEY, OPERATOR_KEY]) {
      expect(filesContaining(root, key)).toEqual([]);
      expect(worker.stdout() + worker.stderr()).not.toContain(key);
    }
  });
});
