import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SharedQueue } from '../../../plugins/agent/worker/queue.js';
import { tempDir } from '../../helpers/app.js';
import { agentRuntime, until } from './playbooks-support.js';
import { startAgent, type AgentApp } from './support.js';

// The agent plugin in worker role (what `tessera worker` sets): its loop runs claimed items with its own jobs.
describe('the worker loop of the agent plugin', () => {
  let t: AgentApp;
  let queue: SharedQueue;
  const queueDir = path.join(tempDir('tessera-queue-'), 'queue');

  beforeAll(async () => {
    t = await startAgent({
      baseUrl: 'http://127.0.0.1:9/api/v1',
      workers: { queueDir, leaseMs: 600, pollMs: 20 },
      worker: { id: 'pod-7', tiers: [7, 8], concurrency: 2 },
    });
    const { jobs, events } = agentRuntime(t);
    // A job of the agent's own that reports a state, then runs until told to stop (or cancelled).
    jobs.define('probe', async (job) => {
      const input = job.input as { finish: boolean; fail?: boolean };
      await events.append('ticket.state', { jobId: job.id, state: 'patching', previous: 'planning' }, { tenant: job.tenant, subject: job.id });
      if (input.fail) throw new Error('the tests failed three times');
      if (input.finish) return { diff: '--- a\n+++ b\n' };
      await new Promise((_r, reject) => job.signal.addEventListener('abort', () => reject(new Error(String(job.signal.reason)))));
    });
    queue = SharedQueue.open(queueDir);
  });
  afterAll(async () => {
    await t.stop();
    await queue.close();
  });

  const settled = (id: string) => until(() => (['completed', 'failed', 'cancelled'].includes(queue.get(id)!.state) ? queue.get(id)! : undefined));

  it("runs an item of its tiers as its own job and writes the result with the job's events under the service's job id", async () => {
    const item = await queue.put({ name: 'probe', tenant: 'acme', tier: 8, input: { finish: true }, origin: { jobId: 'job_service_9' } });
    const done = await settled(item.id);
    expect(done).toMatchObject({ state: 'completed', worker: 'pod-7', attempts: 1, result: { diff: '--- a\n+++ b\n' } });
    expect(done.events).toEqual([{ type: 'ticket.state', data: { jobId: 'job_service_9', state: 'patching', previous: 'planning' } }]);
    const local = agentRuntime(t).jobs.list({ name: 'probe', tenant: 'acme' }).jobs[0]!;
    expect(local).toMatchObject({ tenant: 'acme', key: `work:${item.id}:1`, state: 'completed' });
  });

  it("reports the job's failure, and leaves tiers it does not take", async () => {
    const failing = await queue.put({ name: 'probe', tenant: 'acme', tier: 7, input: { finish: false, fail: true }, origin: { jobId: 'job_f' } });
    const other = await queue.put({ name: 'probe', tenant: 'acme', tier: 3, input: { finish: true }, origin: { jobId: 'job_o' } });
    expect(await settled(failing.id)).toMatchObject({ state: 'failed', error: { message: 'the tests failed three times' } });
    expect(queue.get(other.id)!.state).toBe('queued');
  });

  it('cancels its job when the service cancels the item, relaying events while it runs', async () => {
    const item = await queue.put({ name: 'probe', tenant: 'acme', tier: 8, input: { finish: false }, origin: { jobId: 'job_long' } });
    // Events reach the queue with lease renewals (every third of the lease) while the job runs.
    await until(() => (queue.get(item.id)!.events.length > 0 ? true : undefined));
    expect(queue.get(item.id)).toMatchObject({ state: 'claimed', worker: 'pod-7' });
    expect(queue.cancel(item.id)).toBe(true);
    const local = await until(() => {
      const j = agentRuntime(t)
        .jobs.list({ name: 'probe', tenant: 'acme' })
        .jobs.find((x) => x.key === `work:${item.id}:1`);
      return j && j.state === 'cancelled' ? j : undefined;
    });
    expect(local.state).toBe('cancelled');
    expect(queue.get(item.id)!.state).toBe('cancelled');
  });
});
