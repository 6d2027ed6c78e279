import { mkdirSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { json, tempDir } from '../../helpers/app.js';
import { getScan, searchIds, startScan, startScanner, waitFor, waitForScan, type ScannerApp } from './support.js';

describe('folder watch across a restart, and its event feed', () => {
  const base = tempDir('tessera-scan-restart-');
  const root = path.join(base, 'root');
  const dataDir = path.join(base, 'data');
  let t: ScannerApp | undefined;
  afterAll(async () => {
    await t?.stop();
    rmSync(base, { recursive: true, force: true });
  });

  it('resumes watching after a restart and applies what changed while it was down', async () => {
    mkdirSync(root, { recursive: true });
    writeFileSync(path.join(root, 'keep.txt'), 'a steady lighthouse');
    writeFileSync(path.join(root, 'edit.txt'), 'first draft of the lantern');
    writeFileSync(path.join(root, 'drop.txt'), 'a doomed rowboat');
    writeFileSync(path.join(root, 'move.txt'), 'a wandering buoy');
    const options = { roots: [root], watchStabilityMs: 50 };
    t = await startScanner(options, { dataDir });
    const id = await startScan(t, 'folder', { path: root, targetIndex: 'harbour', watch: true });
    await waitForScan(t, id, (s) => s.state === 'watching');
    expect(await searchIds(t, 'harbour', 'rowboat')).toEqual([path.join(root, 'drop.txt')]);
    await t.stop();
    t = undefined;

    writeFileSync(path.join(root, 'edit.txt'), 'second draft of the beacon');
    unlinkSync(path.join(root, 'drop.txt'));
    renameSync(path.join(root, 'move.txt'), path.join(root, 'moved.txt'));
    writeFileSync(path.join(root, 'new.txt'), 'a fresh jetty');

    t = await startScanner(options, { dataDir });
    const app = t;
    const scan = await waitForScan(app, id, (s) => s.state === 'watching' && s.counts.seen >= 8);
    expect(scan.counts).toMatchObject({ created: 6, modified: 1, deleted: 2 });
    expect(await searchIds(app, 'harbour', 'beacon')).toEqual([path.join(root, 'edit.txt')]);
    expect(await searchIds(app, 'harbour', 'lantern')).toEqual([]);
    expect(await searchIds(app, 'harbour', 'rowboat')).toEqual([]);
    expect(await searchIds(app, 'harbour', 'buoy')).toEqual([path.join(root, 'moved.txt')]);
    expect(await searchIds(app, 'harbour', 'jetty')).toEqual([path.join(root, 'new.txt')]);

    // Still watching after the restart.
    writeFileSync(path.join(root, 'after.txt'), 'a returning ferry');
    await waitFor(async () => (await searchIds(app, 'harbour', 'ferry')).length === 1, 'change after restart indexed');

    // The event feed tells the whole story, including the shutdown, and ends with the final state.
    const feed = fetch(`${app.scanner}/v1/scans/${id}/events`);
    await new Promise((r) => setTimeout(r, 100));
    await json(await fetch(`${app.scanner}/v1/scans/${id}`, { method: 'DELETE' }));
    const res = await feed;
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const text = await res.text();
    const types = [...text.matchAll(/^event: (.+)$/gm)].map((m) => m[1]);
    expect(types[0]).toBe('scan.queued');
    expect(types).toContain('scan.running');
    expect(types).toContain('scan.watching');
    expect(types).toContain('scan.change');
    expect(types.at(-1)).toBe('scan.stopped');
    // running -> watching -> queued (shutdown) -> running -> watching.
    const states = types.filter((t) => t !== 'scan.progress' && t !== 'scan.change');
    expect(states).toEqual(['scan.queued', 'scan.running', 'scan.watching', 'scan.queued', 'scan.running', 'scan.watching', 'scan.stopped']);
    expect(text).toContain('"change":"created","path":"after.txt"');
    expect((await getScan(app, id)).state).toBe('stopped');
  });
});
