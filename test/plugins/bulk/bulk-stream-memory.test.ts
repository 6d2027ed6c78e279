import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { json, tempDir } from '../../helpers/app.js';
import { runCli, type CliProcess } from '../../helpers/cli.js';

/**
 * Proves the bulk path never holds the body: a 200 MB stream into a real server process whose
 * memory is sampled from /proc while it runs. Each document carries a 4 KB payload that is stored
 * but not indexed, so what would grow with the stream is buffering; the memory an index itself
 * needs is the search benchmark's subject.
 *
 * Both total RSS and the process's own memory (RssAnon: heap, WASM memory, malloc) are bounded;
 * the rest of RSS is file-backed (the node binary and pages of the mapped LMDB file).
 */
describe('bulk stream memory', () => {
  const dir = tempDir();
  let cli: CliProcess | undefined;
  afterAll(() => {
    cli?.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('indexes a 200 MB NDJSON stream with the server RSS staying under 400 MB', async () => {
    const file = path.join(dir, 'manifest.json');
    writeFileSync(
      file,
      JSON.stringify({
        name: 'bulk-memory',
        dataDir: './data',
        listeners: [
          { name: 'search', port: 0, plugins: ['search'] },
          { name: 'bulk', port: 0, plugins: ['bulk'] },
        ],
        plugins: { search: {}, bulk: {} },
      }),
    );
    cli = runCli(['serve', '--manifest', file]);
    const health = await waitForHealth(cli);
    const searchUrl = health.search;
    const bulkUrl = health.bulk;
    await fetch(`${searchUrl}/v1/indexes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'big', mappings: { title: { type: 'text' } } }),
    });

    const payload = 'x'.repeat(4000);
    const target = 200 * 1024 * 1024;
    let sent = 0;
    let docs = 0;
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= target) return controller.close();
        let chunk = '';
        for (let i = 0; i < 64; i++, docs++) chunk += `${JSON.stringify({ id: `d${docs}`, title: `document ${docs} in a long stream`, payload })}\n`;
        const bytes = encoder.encode(chunk);
        sent += bytes.byteLength;
        controller.enqueue(bytes);
      },
    });

    const peak = { rss: 0, anon: 0, file: 0 };
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const status = readFileSync(`/proc/${cli!.child.pid}/status`, 'utf8');
        const kb = (name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
        peak.rss = Math.max(peak.rss, kb('VmRSS') / 1024);
        peak.anon = Math.max(peak.anon, kb('RssAnon') / 1024);
        peak.file = Math.max(peak.file, kb('RssFile') / 1024);
        await new Promise((r) => setTimeout(r, 200));
      }
    })();
    const response = await fetch(`${bulkUrl}/v1/indexes/big/bulk`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body,
      duplex: 'half',
    } as RequestInit);
    const result = await json(response);
    sampling = false;
    await sampler;

    expect(sent).toBeGreaterThanOrEqual(target);
    expect(result).toMatchObject({ ok: true, indexed: docs, failed: 0 });
    const count = await json(
      await fetch(`${searchUrl}/v1/indexes/big/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ q: 'stream', size: 1, highlight: false }),
      }),
    );
    expect(count.total).toBe(docs);
    console.log(
      `bulk stream: ${(sent / 1048576).toFixed(0)} MB, ${docs} documents; server peak RSS ${peak.rss.toFixed(0)} MB: own memory (RssAnon) ${peak.anon.toFixed(0)} MB, file-backed ${peak.file.toFixed(0)} MB`,
    );
    expect(peak.anon).toBeGreaterThan(0);
    expect(peak.anon).toBeLessThan(400);
    expect(peak.rss).toBeLessThan(400);
  }, 240_000);
});

async function waitForHealth(cli: CliProcess): Promise<Record<string, string>> {
  const urls: Record<string, string> = {};
  for (let i = 0; i < 2; i++) {
    const line = await cli.waitForLog((l) => l.msg === 'listening' && !(l.listener in urls));
    urls[line.listener] = line.url;
  }
  return urls;
}
