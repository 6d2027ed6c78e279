import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTiers } from '../../../plugins/agent/cli.js';
import { Offload } from '../../../plugins/agent/worker/offload.js';
import { SharedQueue } from '../../../plugins/agent/worker/queue.js';
import { repoRoot, tempDir } from '../../helpers/app.js';
import { runCli } from '../../helpers/cli.js';
import { startProviderServer, type ModelListServer } from './provider-server.js';
import { until } from './playbooks-support.js';

/** A claimer process on the built queue: claims items of tier 8 until none is left, or (`hang`) claims one and never finishes it. */
const claimerScript = `
import { SharedQueue } from ${JSON.stringify(path.join(repoRoot, 'dist/plugins/agent/worker/queue.js'))};
const [dir, id, mode, leaseMs] = process.argv.slice(2);
const queue = SharedQueue.open(dir);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let idle = 0;
for (;;) {
  const item = queue.claim(id, [8], Number(leaseMs));
  if (!item) {
    if (++idle > 15) break;
    await sleep(20);
    continue;
  }
  idle = 0;
  process.stdout.write(JSON.stringify({ id: item.id, attempts: item.attempts }) + '\\n');
  if (mode === 'hang') await sleep(1e9);
  await sleep(15);
  const events = [{ type: 'ticket.state', data: { jobId: item.origin.jobId, state: 'testing', worker: id } }];
  if (!queue.finish(item.id, id, { result: { by: id, n: item.input.n } }, events)) process.stdout.write(JSON.stringify({ lost: item.id }) + '\\n');
}
await queue.close();
`;

function claimer(script: string, dir: string, id: string, mode = 'run', leaseMs = 60_000) {
  const child = spawn(process.execPath, [script, dir, id, mode, String(leaseMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return {
    child,
    exited,
    lines: () =>
      out
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { id?: string; attempts?: number; lost?: string }),
  };
}

describe('the shared work queue and `tessera worker`', () => {
  let script: string;
  beforeAll(() => {
    script = path.join(tempDir('tessera-claimer-'), 'claimer.mjs');
    writeFileSync(script, claimerScript);
  });

  it('lets two processes claim from one queue without ever claiming an item twice', async () => {
    const dir = tempDir('tessera-queue-');
    const queue = SharedQueue.open(dir);
    const items = [];
    for (let n = 0; n < 60; n++)
      items.push(await queue.put({ name: 'ticket', tenant: 'default', tier: n % 5 === 0 ? 3 : 8, input: { n }, origin: { jobId: `job_${n}` } }));
    const a = claimer(script, dir, 'worker-a');
    const b = claimer(script, dir, 'worker-b');
    expect(await a.exited).toBe(0);
    expect(await b.exited).toBe(0);
    const claims = [...a.lines(), ...b.lines()];
    const tier8 = items.filter((i) => i.tier === 8).map((i) => i.id);
    expect(claims.map((c) => c.id).sort()).toEqual(tier8.sort());
    expect(claims.every((c) => c.attempts === 1)).toBe(true);
    expect(a.lines().length).toBeGreaterThan(0);
    expect(b.lines().length).toBeGreaterThan(0);
    for (const item of items) {
      const now = queue.get(item.id)!;
      if (item.tier === 3) expect(now.state).toBe('queued');
      else {
        const by = a.lines().some((c) => c.id === item.id) ? 'worker-a' : 'worker-b';
        expect(now).toMatchObject({ state: 'completed', worker: by, result: { by, n: (item.input as { n: number }).n } });
      }
    }
    await queue.close();
  });

  it('gives the item of a worker killed mid-job to another worker once its lease runs out, and the service relays its events and result', async () => {
    const dir = tempDir('tessera-queue-');
    const queue = SharedQueue.open(dir);
    const appended: Array<{ type: string; data: unknown; subject?: string }> = [];
    const offload = new Offload(queue, { tiers: [8], pollMs: 20, maxAttempts: 3 }, {
      append: async (type: string, data: unknown, o: { subject?: string }) => void appended.push({ type, data, subject: o.subject }),
    } as never);
    const progress: unknown[] = [];
    const job = {
      id: 'job_service_1',
      name: 'ticket',
      tenant: 'default',
      input: { n: 7 },
      signal: new AbortController().signal,
      progress: (_v: number, d: unknown) => progress.push(d),
    };
    expect(offload.applies(8)).toBe(true);
    expect(offload.applies(3)).toBe(false);
    const outcome = offload.run(job as never, 8);
    const hung = claimer(script, dir, 'worker-dies', 'hang', 400);
    await until(() => (hung.lines().length > 0 ? true : undefined));
    hung.child.kill('SIGKILL');
    await hung.exited;
    const item = queue.pending()[0]!;
    expect(item).toMatchObject({ state: 'claimed', worker: 'worker-dies', attempts: 1, origin: { jobId: 'job_service_1' } });
    // The next worker starts once the dead worker's lease has run out: a claimer that started earlier
    // could poll its idle limit away before the expiry on a slow machine and leave without the item.
    await until(() => (Date.now() > item.leaseUntil! ? true : undefined));
    const next = claimer(script, dir, 'worker-lives', 'run', 400);
    expect(await outcome).toEqual({ by: 'worker-lives', n: 7 });
    await next.exited;
    expect(next.lines()).toEqual([{ id: item.id, attempts: 2 }]);
    expect(appended).toEqual([{ type: 'ticket.state', data: { jobId: 'job_service_1', state: 'testing', worker: 'worker-lives' }, subject: 'job_service_1' }]);
    expect(progress[0]).toEqual({ workItem: item.id, relayed: 0, tier: 8 });
    expect(queue.get(item.id)).toBeUndefined();
    await queue.close();
  });

  describe('tessera worker', () => {
    let provider: ModelListServer;
    beforeAll(async () => {
      provider = await startProviderServer([{ id: 'acme/coder-large', context_length: 200_000, pricing: { prompt: '0.000009', completion: '0.00003' } }]);
    });
    afterAll(() => provider.close());

    it('reads tiers as lists and ranges', () => {
      expect(parseTiers('7,8,9,10')).toEqual([7, 8, 9, 10]);
      expect(parseTiers('9-10,7')).toEqual([7, 9, 10]);
      for (const bad of ['', '0', '11', '8-7', 'seven', '7,,8']) expect(parseTiers(bad)).toBeUndefined();
    });

    it("runs a job of its tiers from the queue with the agent plugin's own handler, leaves other tiers, and stops cleanly", async () => {
      const root = tempDir('tessera-worker-');
      const manifest = path.join(root, 'service.json');
      writeFileSync(
        manifest,
        JSON.stringify({
          name: 'agent-service',
          dataDir: './data',
          listeners: [{ name: 'agent', port: 8000, plugins: ['agent'] }],
          plugins: { search: {}, graph: {}, agent: { options: { baseUrl: provider.baseUrl } } },
        }),
      );
      const usage = runCli(['worker', '--manifest', manifest]);
      expect((await usage.exited).code).toBe(2);
      expect(usage.stderr()).toContain('worker needs --tiers');

      const queueDir = path.join(root, 'data-agent-queue');
      const queue = SharedQueue.open(queueDir);
      const heavy = await queue.put({ name: 'models.sync', tenant: 'default', tier: 9, input: {}, origin: { jobId: 'job_sync' } });
      const light = await queue.put({ name: 'models.sync', tenant: 'default', tier: 4, input: {}, origin: { jobId: 'job_light' } });
      const worker = runCli(['worker', '--manifest', manifest, '--tiers', '7-10', '--worker-id', 'pod-heavy-0', '--data-dir', path.join(root, 'worker-store')]);
      try {
        await worker.waitForLog((l) => l.msg === 'agent worker takes jobs from the shared queue');
        const done = await until(() => {
          const now = queue.get(heavy.id)!;
          return now.state === 'completed' || now.state === 'failed' ? now : undefined;
        }, 20_000);
        expect(done).toMatchObject({ state: 'completed', worker: 'pod-heavy-0', attempts: 1 });
        expect(done.result).toMatchObject({ added: expect.any(Number) });
        expect(provider.requests.some((r) => r.path === '/api/v1/models')).toBe(true);
        expect(queue.get(light.id)!.state).toBe('queued');
      } finally {
        worker.child.kill('SIGTERM');
      }
      expect((await worker.exited).code).toBe(0);
      expect(worker.stderr()).toContain(`tessera worker pod-heavy-0: tiers 7,8,9,10, queue ${queueDir}`);
      await queue.close();
    });
  });
});
