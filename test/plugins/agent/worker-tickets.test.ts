import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/app.js';
import { ForgeServer } from './forge-server.js';
import { gitRaw, makeRepo, type Fixture } from './git-fixture.js';
import { agentRuntime } from './playbooks-support.js';
import { startProviderServer, type ModelListServer } from './provider-server.js';
import { startAgent, type AgentApp } from './support.js';
import { configureProvider, diffOf, scriptProvider, statesOf, waitForState, type TicketScript } from './ticket-support.js';

const slug = "export function slugify(title) {\n  return title.toLowerCase().replace(/ /g, '-');\n}\n";
const fixedSlug = "export function slugify(title) {\n  return title\n    .toLowerCase()\n    .replace(/[^a-z0-9]+/g, '-')\n    .replace(/^-|-$/g, '');\n}\n";

/**
 * A ticket job of an offloaded tier runs on a worker: the service (`workers.tiers: [8]`) and a
 * worker (the agent plugin in the role `tessera worker` gives it, its own store) share one queue
 * directory, the repository and the forge. Both are in this process (the CLI's own process is
 * covered by worker.test.ts and worker-settings.test.ts); the provider key is set on the service
 * only: the worker's run uses the settings the queue item carries, not its own store's.
 */
describe('ticket jobs on a worker', () => {
  let service: AgentApp;
  let worker: AgentApp;
  let fx: Fixture;
  let forge: ForgeServer;
  let provider: ModelListServer;
  const scripts = new Map<string, TicketScript>();

  beforeAll(async () => {
    fx = makeRepo('acme', 'web', {
      'lib/slug.mjs': slug,
      'test/slug.test.mjs':
        "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { slugify } from '../lib/slug.mjs';\n\ntest('drops punctuation', () => {\n  assert.equal(slugify('Hello,  World!'), 'hello-world');\n});\n",
    });
    forge = await new ForgeServer('ghp_w').start();
    forge.addRepo('acme/web', fx.bare);
    provider = await startProviderServer();
    scriptProvider(provider, scripts);
    scripts.set('W-1', {
      triage: [{ actionable: true, summary: 'slugify keeps punctuation', files: ['lib/slug.mjs'] }],
      patches: [diffOf(fx.work, { 'lib/slug.mjs': fixedSlug })],
    });
    const root = tempDir('tessera-worker-tickets-');
    const shared = {
      baseUrl: provider.baseUrl,
      reposRoot: fx.reposRoot,
      forge: { baseUrl: forge.url, token: 'ghp_w' },
      workspaces: { refreshSeconds: 0 },
    };
    const queueDir = path.join(root, 'queue');
    service = await startAgent({ ...shared, workers: { queueDir, tiers: [8], pollMs: 50 } }, { dataDir: path.join(root, 'service') });
    worker = await startAgent(
      { ...shared, workers: { queueDir, pollMs: 50, leaseMs: 5000 }, worker: { id: 'pod-heavy-0', tiers: [8], concurrency: 1 } },
      { dataDir: path.join(root, 'worker') },
    );
    await configureProvider(service);
  });
  afterAll(async () => {
    await worker?.stop();
    await service?.stop();
    await forge?.stop();
    await provider?.close();
  });

  it("runs a ticket job of tier 8 on the worker to a pull request, and the service's job shows the worker's record", async () => {
    const res = await service.call('POST', '/api/v1/agent/remediate', {
      repo: 'acme/web',
      tier: 8,
      ticket: { ticket_id: 'W-1', title: 'Slugs keep punctuation', description: 'slugify("Hello,  World!") should be hello-world' },
    });
    expect(res.status).toBe(202);
    const done = await waitForState(service, res.body.jobId, ['completed', 'failed']);
    expect(statesOf(done)).toEqual(['queued', 'triaging', 'planning', 'patching', 'testing', 'proposing', 'completed']);
    expect(done).toMatchObject({ id: res.body.jobId, tests: { passed: true, command: ['node', '--test'] }, pullRequest: { number: expect.any(Number) } });
    expect(done.attempts).toHaveLength(1);
    expect(gitRaw(fx.bare, 'show', `${done.commit}:lib/slug.mjs`)).toBe(fixedSlug);
    // The worker ran it as its own `ticket` job; the service's job waited on the queue.
    const ran = agentRuntime(worker).jobs.list({ name: 'ticket' }).jobs;
    expect(ran.map((j) => [j.state, (j.input as { jobId?: string }).jobId])).toEqual([['completed', res.body.jobId]]);
    const waited = agentRuntime(service).jobs.get(res.body.jobId)!;
    expect(waited.state).toBe('completed');
    expect(waited.progress?.details).toMatchObject({ workItem: expect.any(String), tier: 8 });
    // The worker's `ticket.*` events reached the service's log under the service's job id.
    const states = agentRuntime(service)
      .events.read({ types: ['ticket.state'], subject: res.body.jobId, limit: 1000 })
      .events.map((e) => (e.data as { state: string }).state);
    expect(states).toEqual(expect.arrayContaining(['triaging', 'patching', 'testing', 'proposing', 'completed']));
  });
});
