import { mkdirSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, postJson, tempDir } from '../../helpers/app.js';
import { docCount, getDocument, getScan, isFinal, searchIds, startScan, startScanner, waitFor, waitForScan, type ScannerApp } from './support.js';

describe('folder scan', () => {
  const base = tempDir('tessera-scan-folder-');
  const root = path.join(base, 'root');
  const outside = path.join(base, 'outside');
  let t: ScannerApp;

  beforeAll(async () => {
    mkdirSync(path.join(root, 'docs', 'deep'), { recursive: true });
    mkdirSync(outside, { recursive: true });
    writeFileSync(path.join(outside, 'secret.txt'), 'classified outsider content');
    t = await startScanner({ roots: [root], batchDocs: 3, watchStabilityMs: 50 });
  });
  afterAll(async () => {
    await t.stop();
    rmSync(base, { recursive: true, force: true });
  });

  it('refuses paths outside the roots, also through a symlink, with 403 path_not_allowed', async () => {
    for (const p of [outside, path.join(root, '..', 'outside')]) {
      const res = await postJson(`${t.scanner}/v1/scans/folder`, { path: p, targetIndex: 'nope' });
      expect(res.status).toBe(403);
      expect((await json(res)).error).toMatchObject({ code: 'path_not_allowed' });
    }
    symlinkSync(outside, path.join(root, 'escape-link'));
    try {
      const res = await postJson(`${t.scanner}/v1/scans/folder`, { path: path.join(root, 'escape-link'), targetIndex: 'nope' });
      expect(res.status).toBe(403);
      expect((await json(res)).error.code).toBe('path_not_allowed');
    } finally {
      unlinkSync(path.join(root, 'escape-link'));
    }
    const missing = await postJson(`${t.scanner}/v1/scans/folder`, { path: path.join(root, 'missing'), targetIndex: 'nope' });
    expect(missing.status).toBe(400);
    expect((await json(missing)).error.code).toBe('path_not_found');
  });

  it('indexes text, markdown, html, json and code, and gives binary files metadata only', async () => {
    const dir = path.join(root, 'docs');
    writeFileSync(path.join(dir, 'notes.txt'), 'The albatross flies over the southern ocean.');
    writeFileSync(path.join(dir, 'guide.md'), '# Field Guide\n\nPenguins cannot fly but swim well.');
    writeFileSync(
      path.join(dir, 'page.html'),
      '<html><head><title>Heron Page</title><script>var hidden = "kingfisher";</script></head><body><h1>Herons</h1><p>Grey herons wade &amp; fish.</p></body></html>',
    );
    writeFileSync(path.join(dir, 'data.json'), JSON.stringify({ title: 'Puffin record', colony: 'Skomer puffins' }));
    writeFileSync(path.join(dir, 'deep', 'code.ts'), 'export function pelicanPouch(): number { return 42; }');
    writeFileSync(path.join(dir, 'image.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 13, 1, 2, 3]));
    // A text extension with binary bytes is still binary.
    writeFileSync(path.join(dir, 'fake.txt'), Buffer.from([0x6f, 0x73, 0x70, 0x72, 0x65, 0x79, 0, 0, 1]));
    // A link inside the root to a file outside it is not followed.
    symlinkSync(path.join(outside, 'secret.txt'), path.join(dir, 'leak.txt'));

    const id = await startScan(t, 'folder', { path: dir, targetIndex: 'files' });
    const scan = await waitForScan(t, id, isFinal);
    expect(scan).toMatchObject({
      id,
      type: 'folder',
      state: 'completed',
      targetIndex: 'files',
      destination: 'in-process',
      counts: { seen: 7, created: 7, modified: 0, deleted: 0, indexed: 7, errors: 0, skipped: 1 },
      progress: { unit: 'files', done: 7 },
      error: null,
    });
    expect(scan.startedAt).toEqual(expect.any(String));
    expect(scan.finishedAt).toEqual(expect.any(String));

    const docId = (name: string) => path.join(dir, name);
    expect(await searchIds(t, 'files', 'albatross')).toEqual([docId('notes.txt')]);
    expect(await searchIds(t, 'files', 'penguins')).toEqual([docId('guide.md')]);
    expect(await searchIds(t, 'files', 'herons')).toEqual([docId('page.html')]);
    expect(await searchIds(t, 'files', 'kingfisher')).toEqual([]);
    expect(await searchIds(t, 'files', 'puffins')).toEqual([docId('data.json')]);
    expect(await searchIds(t, 'files', 'pelicanpouch')).toEqual([path.join(dir, 'deep', 'code.ts')]);
    expect(await searchIds(t, 'files', 'classified')).toEqual([]);

    const html = await getDocument(t, 'files', docId('page.html'));
    expect(html).toMatchObject({ kind: 'html', title: 'Heron Page', extension: 'html', relativePath: 'page.html', name: 'page.html' });
    expect(html.content).toContain('Grey herons wade & fish.');
    expect(html.hash).toMatch(/^[0-9a-f]{64}$/);

    const png = await getDocument(t, 'files', docId('image.png'));
    expect(png).toEqual({
      id: docId('image.png'),
      path: docId('image.png'),
      relativePath: 'image.png',
      name: 'image.png',
      extension: 'png',
      size: 11,
      mtime: expect.any(String),
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      kind: 'binary',
    });
    expect((await getDocument(t, 'files', docId('fake.txt'))).kind).toBe('binary');
    expect(await getDocument(t, 'files', docId('leak.txt'))).toBeUndefined();
  });

  it('rescans by fingerprint: modified files are reindexed, deleted ones removed, a rename is a delete and a create', async () => {
    const dir = path.join(root, 'docs');
    // Same content rewritten: same hash, nothing to do.
    writeFileSync(path.join(dir, 'notes.txt'), 'The albatross flies over the southern ocean.');
    writeFileSync(path.join(dir, 'guide.md'), '# Field Guide\n\nEmperor penguins huddle in winter.');
    unlinkSync(path.join(dir, 'image.png'));
    renameSync(path.join(dir, 'data.json'), path.join(dir, 'deep', 'puffins.json'));

    const id = await startScan(t, 'folder', { path: dir, targetIndex: 'files' });
    const scan = await waitForScan(t, id, isFinal);
    expect(scan.state).toBe('completed');
    expect(scan.counts).toEqual({ seen: 6, created: 1, modified: 1, deleted: 2, indexed: 2, errors: 0, skipped: 1 });
    expect(await searchIds(t, 'files', 'emperor')).toEqual([path.join(dir, 'guide.md')]);
    expect(await searchIds(t, 'files', 'puffins')).toEqual([path.join(dir, 'deep', 'puffins.json')]);
    expect(await getDocument(t, 'files', path.join(dir, 'image.png'))).toBeUndefined();
    expect(await docCount(t, 'files')).toBe(6);

    // Nothing changed: nothing is sent.
    const again = await waitForScan(t, await startScan(t, 'folder', { path: dir, targetIndex: 'files' }), isFinal);
    expect(again.counts).toMatchObject({ seen: 6, created: 0, modified: 0, deleted: 0, indexed: 0 });
  });

  it('applies include and exclude patterns', async () => {
    const dir = path.join(root, 'patterns');
    mkdirSync(path.join(dir, 'node_modules', 'x'), { recursive: true });
    writeFileSync(path.join(dir, 'a.md'), 'alpha wombat');
    writeFileSync(path.join(dir, 'b.txt'), 'beta wombat');
    writeFileSync(path.join(dir, 'node_modules', 'x', 'c.md'), 'gamma wombat');
    const id = await startScan(t, 'folder', { path: dir, targetIndex: 'patterns', include: ['**/*.md'], exclude: ['node_modules'] });
    const scan = await waitForScan(t, id, isFinal);
    expect(scan.counts).toMatchObject({ seen: 1, created: 1, skipped: 2 });
    expect(await searchIds(t, 'patterns', 'wombat')).toEqual([path.join(dir, 'a.md')]);
  });

  it('lists scans newest first with paging, and 404s an unknown scan', async () => {
    const first = await json(await fetch(`${t.scanner}/v1/scans?limit=2`));
    expect(first.scans).toHaveLength(2);
    expect(first.next).toEqual(first.scans[1].id);
    expect(first.scans[0].id > first.scans[1].id).toBe(true);
    const second = await json(await fetch(`${t.scanner}/v1/scans?limit=100&cursor=${first.next}`));
    expect(second.scans.length).toBeGreaterThanOrEqual(2);
    expect(second.scans.every((s: any) => s.id < first.next)).toBe(true);
    expect(second.next).toBeUndefined();
    const missing = await fetch(`${t.scanner}/v1/scans/scan_nope`);
    expect(missing.status).toBe(404);
    expect((await json(missing)).error.code).toBe('scan_not_found');
  });

  it('watches: creates, modifications, deletes and renames are applied as they happen, and DELETE stops the watch', async () => {
    const dir = path.join(root, 'watched');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'start.txt'), 'initial narwhal');
    const id = await startScan(t, 'folder', { path: dir, targetIndex: 'watched', watch: true });
    await waitForScan(t, id, (s) => s.state === 'watching');
    expect(await searchIds(t, 'watched', 'narwhal')).toEqual([path.join(dir, 'start.txt')]);

    writeFileSync(path.join(dir, 'new.md'), '# New\n\nA beluga appears.');
    await waitFor(async () => (await searchIds(t, 'watched', 'beluga')).length === 1, 'created file indexed');
    writeFileSync(path.join(dir, 'start.txt'), 'changed to orca');
    await waitFor(async () => (await searchIds(t, 'watched', 'orca')).length === 1, 'modified file reindexed');
    expect(await searchIds(t, 'watched', 'narwhal')).toEqual([]);
    renameSync(path.join(dir, 'new.md'), path.join(dir, 'renamed.md'));
    await waitFor(async () => (await searchIds(t, 'watched', 'beluga')).join() === path.join(dir, 'renamed.md'), 'renamed file moved');
    unlinkSync(path.join(dir, 'start.txt'));
    await waitFor(async () => (await searchIds(t, 'watched', 'orca')).length === 0, 'deleted file removed');

    // The index shows a change before the scan's counters are saved: wait for the counters too.
    await waitFor(async () => (await getScan(t, id)).counts.deleted === 2, 'counts saved');
    const watching = await getScan(t, id);
    expect(watching.state).toBe('watching');
    expect(watching.counts).toMatchObject({ created: 3, modified: 1, deleted: 2 });

    const stop = await fetch(`${t.scanner}/v1/scans/${id}`, { method: 'DELETE' });
    expect(stop.status).toBe(200);
    expect((await json(stop)).scan).toMatchObject({ id, state: 'stopped' });
    writeFileSync(path.join(dir, 'late.txt'), 'a late walrus');
    await new Promise((r) => setTimeout(r, 400));
    expect(await searchIds(t, 'watched', 'walrus')).toEqual([]);
    expect((await getScan(t, id)).state).toBe('stopped');
  });

  it('answers 409 scan_already_active for a second scan of a watched source', async () => {
    const dir = path.join(root, 'busy');
    mkdirSync(dir, { recursive: true });
    const id = await startScan(t, 'folder', { path: dir, targetIndex: 'busy', watch: true });
    const res = await postJson(`${t.scanner}/v1/scans/folder`, { path: dir, targetIndex: 'busy' });
    expect(res.status).toBe(409);
    expect((await json(res)).error).toMatchObject({ code: 'scan_already_active', details: { id } });
    await fetch(`${t.scanner}/v1/scans/${id}`, { method: 'DELETE' });
  });
});

describe('folder scan without roots', () => {
  it('refuses folder and file scans and names the option to set', async () => {
    const t = await startScanner({});
    try {
      for (const kind of ['folder', 'file']) {
        const res = await postJson(`${t.scanner}/v1/scans/${kind}`, { path: '/tmp', targetIndex: 'x' });
        expect(res.status).toBe(403);
        const body = await json(res);
        expect(body.error.code).toBe('scan_roots_not_configured');
        expect(body.error.message).toContain('plugins.scanner.options.roots');
      }
    } finally {
      await t.stop();
    }
  });
});
