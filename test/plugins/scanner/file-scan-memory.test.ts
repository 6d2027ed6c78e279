import { createWriteStream, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { json, postJson, tempDir } from '../../helpers/app.js';
import { runCli, type CliProcess } from '../../helpers/cli.js';

/**
 * A 500 MB JSONL file scanned by a scanner process whose memory is sampled from /proc while it
 * runs. The documents go to a second Tessera process (search and bulk) through the bulk API, so the
 * sampled process holds only what the scan itself holds: what an index needs is the engine's
 * business, measured by its own benchmarks.
 */
describe('file scan memory', () => {
  const dir = tempDir('tessera-scan-memory-');
  const processes: CliProcess[] = [];
  afterAll(() => {
    for (const p of processes) p.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('scans a 500 MB JSONL file with the scanner process under 400 MB RSS', async () => {
    const data = path.join(dir, 'files');
    mkdirSync(data, { recursive: true });
    const file = path.join(data, 'big.jsonl');
    const payload = 'x'.repeat(8000);
    const target = 500 * 1024 * 1024;
    let written = 0;
    let lines = 0;
    const out = createWriteStream(file);
    while (written < target) {
      let chunk = '';
      for (let i = 0; i < 64; i++, lines++) chunk += `${JSON.stringify({ sku: `d${lines}`, title: `document ${lines} of a large file`, payload })}\n`;
      written += Buffer.byteLength(chunk);
      if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
    }
    await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));

    const engineManifest = path.join(dir, 'engine.json');
    writeFileSync(
      engineManifest,
      JSON.stringify({
        name: 'engine',
        dataDir: './engine-data',
        listeners: [{ name: 'engine', port: 0, plugins: ['search', 'bulk'] }],
        plugins: { search: {}, bulk: { options: { batchDocs: 2000 } } },
      }),
    );
    const engine = runCli(['serve', '--manifest', engineManifest]);
    processes.push(engine);
    const engineUrl = (await engine.waitForLog((l) => l.msg === 'listening')).url as string;
    await postJson(`${engineUrl}/v1/indexes`, { name: 'big', mappings: { title: { type: 'text' } } });

    const scannerManifest = path.join(dir, 'scanner.json');
    writeFileSync(
      scannerManifest,
      JSON.stringify({
        name: 'scanner',
        dataDir: './scanner-data',
        listeners: [{ name: 'scanner', port: 0, plugins: ['scanner'] }],
        plugins: { search: {}, scanner: { options: { roots: [data], allowPrivateAddresses: true } } },
      }),
    );
    const scanner = runCli(['serve', '--manifest', scannerManifest]);
    processes.push(scanner);
    const scannerUrl = (await scanner.waitForLog((l) => l.msg === 'listening')).url as string;

    const peak = { rss: 0, anon: 0 };
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const status = readFileSync(`/proc/${scanner.child.pid}/status`, 'utf8');
        const kb = (name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
        peak.rss = Math.max(peak.rss, kb('VmRSS') / 1024);
        peak.anon = Math.max(peak.anon, kb('RssAnon') / 1024);
        await new Promise((r) => setTimeout(r, 200));
      }
    })();
    const started = Date.now();
    const answer = await json(await postJson(`${scannerUrl}/v1/scans/file`, { path: file, targetIndex: 'big', idField: 'sku', engineUrl }));
    let scan: any;
    while (true) {
      scan = (await json(await fetch(`${scannerUrl}/v1/scans/${answer.scanId}`))).scan;
      if (['completed', 'failed', 'stopped'].includes(scan.state)) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    sampling = false;
    await sampler;
    const seconds = (Date.now() - started) / 1000;

    expect(scan).toMatchObject({ state: 'completed', counts: { seen: lines, indexed: lines, errors: 0 }, progress: { done: written, total: written } });
    const count = await json(await postJson(`${engineUrl}/v1/indexes/big/search`, { q: 'large', size: 1, highlight: false }));
    expect(count.total).toBe(lines);
    console.log(
      `file scan: ${(written / 1048576).toFixed(0)} MB, ${lines} lines in ${seconds.toFixed(1)} s (${Math.round(lines / seconds)} docs/s); scanner peak RSS ${peak.rss.toFixed(0)} MB, own memory (RssAnon) ${peak.anon.toFixed(0)} MB`,
    );
    expect(peak.anon).toBeGreaterThan(0);
    expect(peak.rss).toBeLessThan(400);
  }, 600_000);
});
