import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, json, postJson, tempDir } from '../../helpers/app.js';
import { listeningUrls, runCli, type CliProcess } from '../../helpers/cli.js';

const manifest = (plugins = { search: { options: { maxSegments: 3 } } }) => ({ listeners: [{ name: 'search', port: 0, plugins: ['search'] }], plugins });

describe('search persistence', () => {
  const dirs: string[] = [];
  const running: CliProcess[] = [];
  afterEach(() => {
    for (const cli of running.splice(0)) cli.child.kill('SIGKILL');
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('keeps indexes, documents and deletes across a restart, and merges segments in the background', async () => {
    const dataDir = tempDir();
    dirs.push(dataDir);
    let t = await createTestApp(manifest(), { dataDir });
    let base = `${t.url()}/v1/indexes`;
    await postJson(base, { name: 'notes', mappings: { text: { type: 'text' }, tag: { type: 'keyword' } } });
    for (let i = 0; i < 6; i++) await postJson(`${base}/notes/documents`, [{ id: `n${i}`, text: `note number ${i} about lmdb`, tag: i % 2 ? 'odd' : 'even' }]);
    await fetch(`${base}/notes/documents/n0`, { method: 'DELETE' });
    // Six one-document writes with maxSegments 3: a merge runs after the writes that pass the limit.
    await new Promise((r) => setTimeout(r, 200));
    const stats = (await json(await fetch(`${base}/notes`))).index;
    expect(stats.docCount).toBe(5);
    expect(stats.stats.segments).toBeLessThanOrEqual(3);
    await t.stop();

    t = await createTestApp(manifest(), { dataDir });
    base = `${t.url()}/v1/indexes`;
    const result = await json(await postJson(`${base}/notes/search`, { q: 'lmdb', size: 10, filter: { eq: { tag: 'odd' } } }));
    expect(result.total).toBe(3);
    expect(result.hits.map((h: { id: string }) => h.id).sort()).toEqual(['n1', 'n3', 'n5']);
    expect((await fetch(`${base}/notes/documents/n0`)).status).toBe(404);
    expect((await json(await fetch(`${base}/notes`))).index.docCount).toBe(5);
    await t.stop();
  });

  it('loses nothing acknowledged when the process is killed with SIGKILL', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const file = path.join(dir, 'manifest.json');
    writeFileSync(file, JSON.stringify({ name: 'kill-test', dataDir: './data', ...manifest() }));
    const first = runCli(['serve', '--manifest', file]);
    running.push(first);
    const base = `${(await listeningUrls(first, 1)).search}/v1/indexes`;
    await postJson(base, { name: 'k', mappings: { text: { type: 'text' } } });
    const acknowledged: string[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await json(await postJson(`${base}/k/documents`, [{ id: `d${i}`, text: `durable document ${i}` }]));
      if (res.indexed === 1) acknowledged.push(`d${i}`);
    }
    first.child.kill('SIGKILL');
    await first.exited;
    expect(acknowledged).toHaveLength(20);

    const second = runCli(['serve', '--manifest', file]);
    running.push(second);
    const again = `${(await listeningUrls(second, 1)).search}/v1/indexes`;
    const result = await json(await postJson(`${again}/k/search`, { q: 'durable', size: 100, select: ['id'], highlight: false }));
    expect(result.total).toBe(20);
    expect(result.hits.map((h: { id: string }) => h.id).sort()).toEqual([...acknowledged].sort());
  });
});
