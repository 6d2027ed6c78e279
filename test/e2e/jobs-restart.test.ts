import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { fixturesDir, json, tempDir } from '../helpers/app.js';
import { listeningUrls, runCli, type CliProcess } from '../helpers/cli.js';

/** A manifest serving the worker fixture (test/fixtures/plugins/worker) from `dir`, data in `dir/data`. */
function workerManifest(dir: string, extra: Record<string, unknown> = {}): string {
  const file = path.join(dir, 'manifest.json');
  writeFileSync(
    file,
    JSON.stringify({
      name: 'jobs-restart',
      dataDir: './data',
      listeners: [{ name: 'main', port: 0, plugins: ['worker'] }],
      plugins: { worker: { module: path.join(fixturesDir, 'plugins/worker/index.js') } },
      ...extra,
    }),
  );
  return file;
}

async function call(base: string, method: string, p: string, body?: unknown): Promise<any> {
  const res = await fetch(`${base}${p}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return json(res);
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

describe('jobs and schedules across process deaths', () => {
  const running: CliProcess[] = [];
  const dirs: string[] = [];
  afterEach(() => {
    for (const cli of running.splice(0)) cli.child.kill('SIGKILL');
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const start = async (file: string): Promise<string> => {
    const cli = runCli(['serve', '--manifest', file]);
    running.push(cli);
    return (await listeningUrls(cli, 1)).main!;
  };

  it('resumes a job that was running when the process was killed (kill -9), and leaves a fail-on-interrupt job interrupted', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const file = workerManifest(dir);
    const base = await start(file);
    // The resumed attempt finishes quickly (resumeMs): the fixture's sleep job reads it after a restart.
    const resumable = (await call(base, 'POST', '/jobs', { name: 'sleep', input: { ms: 60_000, resumeMs: 50 } })).job;
    const once = (await call(base, 'POST', '/jobs', { name: 'once', input: { ms: 60_000 } })).job;
    await until('both running', async () => {
      const states = [(await call(base, 'GET', `/jobs/${resumable.id}`)).job.state, (await call(base, 'GET', `/jobs/${once.id}`)).job.state];
      return states.every((s) => s === 'running') ? true : undefined;
    });
    await until('progress reported', async () => ((await call(base, 'GET', `/jobs/${resumable.id}`)).job.progress ? true : undefined));
    // Progress is stored at most every 250 ms: give it time to reach the store before the kill.
    await sleep(400);
    running[0]!.child.kill('SIGKILL');
    await running[0]!.exited;

    const again = await start(file);
    const resumed = (await call(again, 'GET', `/jobs/${resumable.id}/wait`)).job;
    expect(resumed).toMatchObject({ state: 'completed', attempt: 1, result: { slept: 50 } });
    expect(resumed.attempts.map((a: any) => a.error?.code ?? 'ok')).toEqual(['interrupted', 'ok']);
    expect(resumed.progress.details.slept).toBeGreaterThan(0);
    const failed = (await call(again, 'GET', `/jobs/${once.id}`)).job;
    expect(failed).toMatchObject({ state: 'interrupted', error: { code: 'interrupted', message: 'The process stopped while the job ran.' } });
    const types = (await call(again, 'GET', '/events?limit=1000')).events.filter((e: any) => e.subject === resumable.id).map((e: any) => e.type);
    expect(types).toContain('job.interrupted');
    expect(types.at(-1)).toBe('job.completed');
  });

  it('stops running jobs on SIGTERM within the shutdown limit and runs them again after the next start', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const file = workerManifest(dir, { limits: { shutdownTimeoutMs: 3000 } });
    const base = await start(file);
    const job = (await call(base, 'POST', '/jobs', { name: 'sleep', input: { ms: 60_000, resumeMs: 20 } })).job;
    await until('running with progress', async () => ((await call(base, 'GET', `/jobs/${job.id}`)).job.progress ? true : undefined));
    const stopping = Date.now();
    running[0]!.child.kill('SIGTERM');
    expect((await running[0]!.exited).code).toBe(0);
    expect(Date.now() - stopping).toBeLessThan(3000);
    const again = await start(file);
    const done = (await call(again, 'GET', `/jobs/${job.id}/wait`)).job;
    // A shutdown is not the job's failure: the attempt is not counted, and it completes after the restart.
    expect(done).toMatchObject({ state: 'completed', attempt: 1, result: { slept: 20 } });
    expect(done.attempts.map((a: any) => a.error?.code ?? 'ok')).toEqual(['shutdown', 'ok']);
  });

  it('keeps schedules across a restart and runs a tick missed while down exactly once (catchUp once), or skips it (catchUp skip)', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const file = workerManifest(dir);
    const base = await start(file);
    await call(base, 'POST', '/schedules', { id: 'hourly-once', spec: { interval: '1h', catchUp: 'once' }, jobName: 'tick' });
    await call(base, 'POST', '/schedules', { id: 'hourly-skip', spec: { interval: '1h', catchUp: 'skip' }, jobName: 'tick' });
    running[0]!.child.kill('SIGKILL');
    await running[0]!.exited;
    // Move both schedules' next run into the past, as if the process had been down for hours.
    const { Store } = await import('../../runtime/store.js');
    const store = Store.open(path.join(dir, 'data'));
    const schedules = store.namespace('__runtime').db<any, [string, string, string]>('schedules');
    for (const id of ['hourly-once', 'hourly-skip']) {
      const record = schedules.get(['worker', 'default', id]);
      await schedules.put(['worker', 'default', id], {
        ...record,
        createdAt: new Date(Date.now() - 5.5 * 3_600_000).toISOString(),
        nextRunAt: new Date(Date.now() - 4.5 * 3_600_000).toISOString(),
      });
    }
    await store.close();

    const again = await start(file);
    const ran = await until('the catch-up run', async () => ((await call(again, 'GET', '/runs/tick:hourly-once')).value === 1 ? true : undefined));
    expect(ran).toBe(true);
    await sleep(300);
    // Four and a half hours of missed ticks run once, not five times; the skipping schedule ran none.
    expect((await call(again, 'GET', '/runs/tick:hourly-once')).value).toBe(1);
    expect((await call(again, 'GET', '/runs/tick:hourly-skip')).value).toBeNull();
    for (const id of ['hourly-once', 'hourly-skip']) {
      const schedule = (await call(again, 'GET', `/schedules/${id}`)).schedule;
      const next = Date.parse(schedule.nextRunAt);
      expect(next).toBeGreaterThan(Date.now());
      expect(next).toBeLessThanOrEqual(Date.now() + 3_600_000);
      // Still on the hourly grid of its creation time.
      expect((next - Date.parse(schedule.createdAt)) % 3_600_000).toBe(0);
    }
  });
});
