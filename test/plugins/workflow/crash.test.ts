import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, type CliProcess } from '../../helpers/cli.js';
import { adminKey, listening, post, project, write } from './cli-support.js';

const fast = {
  name: 'fast',
  route: { method: 'POST', path: '/fast' },
  searchFields: ['n'],
  steps: [
    { id: 'a', kind: 'map', config: { set: { seen: '{{input.n}}' }, mergeInput: true } },
    { id: 'b', kind: 'mock', config: { response: { ok: true }, mergeInput: true } },
  ],
};
const slow = {
  name: 'slow',
  route: { method: 'POST', path: '/slow' },
  steps: [{ id: 'wait', kind: 'mock', config: { response: { done: true }, delayMs: 60_000 } }],
};

// Seed 001 / issue 17: an acknowledged execution survives kill -9 of the server process; one running
// when the process dies is marked `interrupted` at the next start. Both storage drivers.
describe.each([
  ['lmdb', [] as string[]],
  ['sqlite', ['--db-path', 'wf.db']],
])('workflow executions across kill -9 (%s)', (_driver, extra) => {
  const running: CliProcess[] = [];
  const dirs: string[] = [];
  afterEach(() => {
    for (const p of running.splice(0)) p.child.kill('SIGKILL');
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('keeps every acknowledged execution with its timeline and marks the running one interrupted', async () => {
    const d = project();
    dirs.push(d);
    write(d, 'flows/fast.json', fast);
    write(d, 'flows/slow.json', slow);
    const args = ['serve', '--workflows', 'flows', '--port', '0', ...extra];
    const first = runCli(args, { cwd: d });
    running.push(first);
    const url = await listening(first);
    const key = await adminKey(first);
    const acknowledged: string[] = [];
    await Promise.all(
      Array.from({ length: 4 }, async (_, lane) => {
        for (let i = 0; i < 25; i++) {
          const r = await post(`${url}/fast`, { n: lane * 100 + i });
          expect(r.status).toBe(200);
          acknowledged.push(r.execution!);
        }
      }),
    );
    const pending = post(`${url}/slow`, {}).catch(() => undefined);
    // The running execution is recorded before the kill (visible to a trace query).
    const hub = async (base: string, path: string) => (await (await fetch(`${base}${path}`, { headers: { 'x-api-key': key } })).json()) as any;
    for (let i = 0; (await hub(url, '/hub/traces?status=running')).traces.length === 0; i++) {
      expect(i).toBeLessThan(100);
      await new Promise((r) => setTimeout(r, 50));
    }
    const [runningTrace] = (await hub(url, '/hub/traces?status=running')).traces;
    first.child.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');
    await pending;

    const second = runCli(args, { cwd: d });
    running.push(second);
    const url2 = await listening(second);
    await second.waitForLog((l) => l.msg?.includes('marked interrupted'));
    expect(acknowledged).toHaveLength(100);
    for (const id of acknowledged) {
      const { trace } = await hub(url2, `/hub/traces/${id}`);
      expect(trace).toMatchObject({ id, workflow: 'fast', status: 'completed', output: { seen: trace.input.n, ok: true } });
      expect(trace.steps.map((s: any) => [s.id, s.status])).toEqual([
        ['a', 'completed'],
        ['b', 'completed'],
      ]);
    }
    const interrupted = (await hub(url2, '/hub/traces/' + runningTrace.id)).trace;
    expect(interrupted).toMatchObject({ workflow: 'slow', status: 'interrupted', error: { code: 'interrupted' }, finishedAt: expect.any(String) });
    expect((await hub(url2, '/hub/traces?status=running')).traces).toEqual([]);
    expect((await hub(url2, '/hub/traces?workflow=fast&field.n=203')).traces.map((t: any) => t.input.n)).toEqual([203]);
  });
});
