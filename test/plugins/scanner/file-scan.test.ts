import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, postJson, tempDir } from '../../helpers/app.js';
import { docCount, getDocument, isFinal, searchIds, startScan, startScanner, waitForScan, type ScannerApp } from './support.js';

describe('file scan', () => {
  const root = tempDir('tessera-scan-file-');
  let t: ScannerApp;

  beforeAll(async () => {
    mkdirSync(root, { recursive: true });
    t = await startScanner({ roots: [root], batchDocs: 2, maxReportedErrors: 2, allowPrivateAddresses: true }, { bulk: true });
  });
  afterAll(async () => {
    await t.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('streams JSONL in batches, ids from line numbers, and reports bad lines by number without stopping', async () => {
    const file = path.join(root, 'birds.jsonl');
    writeFileSync(
      file,
      [
        JSON.stringify({ name: 'Arctic tern', note: 'longest migration' }),
        '{"name": "broken',
        '',
        JSON.stringify({ name: 'Snowy owl', note: 'tundra hunter' }),
        '[1, 2, 3]',
        JSON.stringify({ name: 'Kakapo', note: 'flightless parrot' }),
        'not json at all',
        JSON.stringify({ name: 'Kea', note: 'alpine parrot' }),
      ].join('\n'),
    );
    const id = await startScan(t, 'file', { path: file, targetIndex: 'birds' });
    const scan = await waitForScan(t, id, isFinal);
    expect(scan).toMatchObject({
      type: 'file',
      state: 'completed',
      counts: { seen: 7, created: 4, modified: 0, indexed: 4, errors: 3 },
      progress: { unit: 'bytes', done: expect.any(Number), total: expect.any(Number) },
    });
    expect(scan.progress.done).toBe(scan.progress.total);
    // maxReportedErrors: 2 are listed, all 3 counted.
    expect(scan.badLines).toEqual([
      { line: 2, message: expect.stringContaining('Line 2 is not valid JSON') },
      { line: 5, message: 'Line 5 is not a JSON object.' },
    ]);
    expect(await searchIds(t, 'birds', 'parrot')).toEqual(['6', '8']);
    expect(await getDocument(t, 'birds', '4')).toEqual({ id: '4', name: 'Snowy owl', note: 'tundra hunter' });
  });

  it('reads CSV with a header, quoted fields and embedded newlines; idField names the id; bad records are counted', async () => {
    const file = path.join(root, 'trees.csv');
    writeFileSync(
      file,
      [
        'code,name,description',
        'oak,Oak,"Strong, slow ""hardwood"""',
        'yew,Yew,"Poisonous',
        'evergreen conifer"',
        'bad,row',
        'ash,Ash,Light timber',
        ',Nameless,no code',
      ].join('\n') + '\n',
    );
    const id = await startScan(t, 'file', { path: file, format: 'csv', targetIndex: 'trees', idField: 'code' });
    const scan = await waitForScan(t, id, isFinal);
    expect(scan).toMatchObject({ state: 'completed', counts: { seen: 5, indexed: 3, errors: 2 } });
    expect(scan.badLines).toEqual([
      { line: 5, message: expect.stringContaining('Invalid Record Length') },
      { line: 7, message: 'Line 7 has no "code" (string or number) to use as the id.' },
    ]);
    expect(await getDocument(t, 'trees', 'oak')).toEqual({ id: 'oak', code: 'oak', name: 'Oak', description: 'Strong, slow "hardwood"' });
    expect((await getDocument(t, 'trees', 'yew')).description).toBe('Poisonous\nevergreen conifer');
    expect(await searchIds(t, 'trees', 'conifer')).toEqual(['yew']);
  });

  it('feeds a remote engine through its bulk API when engineUrl is given, creating the index there', async () => {
    const file = path.join(root, 'remote.jsonl');
    writeFileSync(
      file,
      [
        { sku: 'a1', title: 'red kite' },
        { sku: 'a2', title: 'black kite' },
        { sku: 'a3', title: 'osprey' },
      ]
        .map((d) => JSON.stringify(d))
        .join('\n') + '\n',
    );
    expect(await docCount(t, 'remote')).toBe(-1);
    const id = await startScan(t, 'file', { path: file, targetIndex: 'remote', idField: 'sku', engineUrl: t.search });
    const scan = await waitForScan(t, id, isFinal);
    expect(scan).toMatchObject({ state: 'completed', destination: t.search, counts: { seen: 3, indexed: 3, errors: 0, created: 0 } });
    expect(await searchIds(t, 'remote', 'kite')).toEqual(['a1', 'a2']);
  });

  it('refuses an engineUrl the egress policy forbids', async () => {
    const strict = await startScanner({ roots: [root] });
    try {
      const res = await postJson(`${strict.scanner}/v1/scans/file`, { path: path.join(root, 'remote.jsonl'), targetIndex: 'x', engineUrl: strict.search });
      expect(res.status).toBe(403);
      expect((await json(res)).error).toMatchObject({ code: 'engine_url_not_allowed', details: { reason: 'private_address' } });
    } finally {
      await strict.stop();
    }
  });

  it("fails the scan with the engine's answer when the remote engine refuses", async () => {
    const file = path.join(root, 'remote.jsonl');
    const id = await startScan(t, 'file', { path: file, targetIndex: 'Bad Name!', engineUrl: t.search });
    const scan = await waitForScan(t, id, isFinal);
    expect(scan.state).toBe('failed');
    expect(scan.error.code).toBe('engine_rejected');
    expect(scan.error.message).toContain('400');
  });
});
