import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serialGraphBuilds } from '../../../plugins/search/index/runners.js';
import { createTestApp, json, postJson, tempDir, type TestApp } from '../../helpers/app.js';
import { prng } from './support/prng.js';

const DIMS = 16;
const rand = prng(7);
const vector = (): number[] => Array.from({ length: DIMS }, () => rand() * 2 - 1);
const batch = (from: number, n: number): Array<Record<string, unknown>> =>
  Array.from({ length: n }, (_, i) => ({ id: `d${from + i}`, title: `document ${from + i}`, _vector: vector() }));

/** `tessera_jobs_finished_total` of the search plugin, by job name and state. */
async function finishedJobs(base: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^tessera_jobs_finished_total\{([^}]*)\} (\d+)/gm)) {
    const labels = Object.fromEntries([...m[1]!.matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    if (labels.plugin === 'search') out[`${labels.job}:${labels.state}`] = Number(m[2]);
  }
  return out;
}

async function until<T>(what: string, read: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const v = await read();
    if (done(v)) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}: ${JSON.stringify(await read())}`);
}

describe('search background work on ctx.jobs', () => {
  const dataDir = tempDir();
  let t: TestApp;
  let base: string;
  const manifest = { listeners: [{ name: 'search', port: 0, plugins: ['search'] }], plugins: { search: { options: { maxSegments: 2 } } } };
  const stats = async (): Promise<any> => (await json(await fetch(`${base}/v1/indexes/v`))).index.stats;

  beforeAll(async () => {
    t = await createTestApp(manifest, { dataDir });
    base = t.url();
    const created = await postJson(`${base}/v1/indexes`, {
      name: 'v',
      settings: { vectorDimensions: DIMS, vectorMetric: 'cosine', vectorIndex: { type: 'hnsw', m: 8, efConstruction: 32 } },
    });
    expect(created.status).toBe(200);
  });
  afterAll(async () => {
    await t.stop();
  });

  it('builds each segment graph and merges past maxSegments as jobs, counted in the job metrics', async () => {
    // Four writes make four segments; past maxSegments (2) a merge job folds them.
    for (let i = 0; i < 4; i++) expect((await json(await postJson(`${base}/v1/indexes/v/documents`, batch(i * 300, 300)))).errors).toEqual([]);
    const s = await until(
      'merged, ready graphs',
      stats,
      (v) => v.segments <= 2 && v.vectorIndex.ready === v.vectorIndex.segments && v.vectorIndex.segments > 0,
    );
    expect(s.vectorIndex.inserted).toBe(1200);
    const finished = await until(
      'job metrics',
      () => finishedJobs(base),
      (f) => (f['merge-segments:completed'] ?? 0) >= 1 && (f['graph-build:completed'] ?? 0) >= 2,
    );
    expect(finished['graph-build:failed'] ?? 0).toBe(0);
    expect(finished['merge-segments:failed'] ?? 0).toBe(0);
    // The same documents are found after the merge, through the graphs.
    const res = await json(await postJson(`${base}/v1/indexes/v/search`, { mode: 'semantic', vector: vector(), size: 5 }));
    expect(res.hits).toHaveLength(5);
  });

  it('a restart loads the stored graphs and queues no stale build', async () => {
    await t.stop();
    t = await createTestApp(manifest, { dataDir });
    base = t.url();
    const s = await until('graphs after restart', stats, (v) => v.vectorIndex.ready === v.vectorIndex.segments);
    expect(s.vectorIndex.inserted).toBe(1200);
    const system = await json(await fetch(`${base}/v1/system`));
    const search = system.plugins.find((p: { name: string }) => p.name === 'search');
    expect(search.jobs).toMatchObject({ queued: 0, running: 0 });
  });
});

describe('serialGraphBuilds (an engine used outside the plugin)', () => {
  it('runs builds one at a time in the order queued, and goes on after a failure', async () => {
    const run = serialGraphBuilds();
    const label = { tenant: 'default', index: 'i', segment: 0, nodes: 1 };
    const order: string[] = [];
    let active = 0;
    let peak = 0;
    const work =
      (name: string, fail = false) =>
      async (): Promise<void> => {
        active++;
        peak = Math.max(peak, active);
        order.push(`start ${name}`);
        await new Promise((r) => setTimeout(r, 5));
        order.push(`end ${name}`);
        active--;
        if (fail) throw new Error(`${name} failed`);
      };
    const a = run(label, work('a'));
    const b = run(label, work('b', true));
    const c = run(label, work('c'));
    await a;
    await expect(b).rejects.toThrow('b failed');
    await c;
    expect(order).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
    expect(peak).toBe(1);
  });
});
