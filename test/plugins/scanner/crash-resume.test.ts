import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { json, postJson, tempDir } from '../../helpers/app.js';
import { runCli, type CliProcess } from '../../helpers/cli.js';

/**
 * A one-off file scan cut by `kill -9` resumes at the next start (docs/scanner.md, "Restarts and
 * shutdown"): the job is found running, queued again, and finishes from its stored position, and
 * the index ends with every line once.
 */
describe('a file scan across kill -9', () => {
  const dir = tempDir('tessera-scan-crash-');
  const processes: CliProcess[] = [];
  afterAll(() => {
    for (const p of processes) p.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('resumes after the crash and indexes every line exactly once', async () => {
    const data = path.join(dir, 'files');
    mkdirSync(data);
    const lines = 150_000;
    const file = path.join(data, 'items.jsonl');
    writeFileSync(file, Array.from({ length: lines }, (_, i) => JSON.stringify({ sku: `s${i}`, title: `item ${i} wing flutter` })).join('\n') + '\n');
    const manifest = path.join(dir, 'manifest.json');
    writeFileSync(
      manifest,
      JSON.stringify({
        name: 'crash',
        dataDir: './data',
        listeners: [
          { name: 'scanner', port: 0, plugins: ['scanner'] },
          { name: 'search', port: 0, plugins: ['search'] },
        ],
        plugins: { search: {}, scanner: { options: { roots: [data] } } },
      }),
    );
    const start = async (): Promise<{ scanner: string; search: string; p: CliProcess }> => {
      const p = runCli(['serve', '--manifest', manifest]);
      processes.push(p);
      const scanner = (await p.waitForLog((l) => l.msg === 'listening' && l.listener === 'scanner')).url as string;
      const search = (await p.waitForLog((l) => l.msg === 'listening' && l.listener === 'search')).url as string;
      return { scanner, search, p };
    };

    const first = await start();
    const { scanId } = await json(await postJson(`${first.scanner}/v1/scans/file`, { path: file, targetIndex: 'items', idField: 'sku' }));
    // Kill it mid-scan: some lines indexed, most not.
    let seen = 0;
    let state = '';
    for (let i = 0; i < 600 && seen < 10_000; i++) {
      ({
        state,
        counts: { seen },
      } = (await json(await fetch(`${first.scanner}/v1/scans/${scanId}`))).scan);
      if (seen < 10_000) await new Promise((r) => setTimeout(r, 50));
    }
    expect(seen).toBeGreaterThanOrEqual(10_000);
    // Still running when killed: the crash lands mid-scan.
    expect(state).toBe('running');
    expect(seen).toBeLessThan(lines);
    first.p.child.kill('SIGKILL');
    await new Promise((r) => first.p.child.once('exit', r));

    const second = await start();
    let scan: any;
    for (let i = 0; i < 1200; i++) {
      scan = (await json(await fetch(`${second.scanner}/v1/scans/${scanId}`))).scan;
      if (['completed', 'failed', 'stopped'].includes(scan.state)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(scan.state, JSON.stringify(scan)).toBe('completed');
    const index = (await json(await fetch(`${second.search}/v1/indexes/items`))).index;
    expect(index.docCount).toBe(lines);
    const found = await json(await postJson(`${second.search}/v1/indexes/items/search`, { q: '', filter: { eq: { id: `s${lines - 1}` } } }));
    expect(found.total).toBe(1);
  }, 120_000);
});
