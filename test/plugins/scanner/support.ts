import { expect } from 'vitest';
import { createTestApp, json, postJson, type TestApp } from '../../helpers/app.js';

export interface ScannerApp extends TestApp {
  scanner: string;
  search: string;
}

/** search and scanner on their own listeners, as in the fleet manifest. */
export async function startScanner(
  scannerOptions: Record<string, unknown>,
  options: { dataDir?: string; extraPlugins?: Record<string, unknown>; bulk?: boolean } = {},
): Promise<ScannerApp> {
  const t = await createTestApp(
    {
      listeners: [
        { name: 'search', port: 0, plugins: options.bulk ? ['search', 'bulk'] : ['search'] },
        { name: 'scanner', port: 0, plugins: ['scanner'] },
      ],
      plugins: { search: {}, scanner: { options: scannerOptions }, ...(options.bulk ? { bulk: {} } : {}) },
    },
    options.dataDir ? { dataDir: options.dataDir } : {},
  );
  return Object.assign(t, { scanner: t.url('scanner'), search: t.url('search') });
}

export async function startScan(t: ScannerApp, kind: 'folder' | 'file' | 'database', body: unknown): Promise<string> {
  const res = await postJson(`${t.scanner}/v1/scans/${kind}`, body);
  const answer = await json(res);
  expect(res.status, JSON.stringify(answer)).toBe(200);
  expect(answer).toEqual({ ok: true, scanId: expect.stringMatching(/^scan_/), state: 'queued' });
  return answer.scanId as string;
}

export async function getScan(t: ScannerApp, id: string): Promise<any> {
  return (await json(await fetch(`${t.scanner}/v1/scans/${id}`))).scan;
}

/** Polls the scan until `predicate` holds (the record itself is what a client would poll). */
export async function waitForScan(t: ScannerApp, id: string, predicate: (scan: any) => boolean, timeoutMs = 20_000): Promise<any> {
  const until = Date.now() + timeoutMs;
  let scan: any;
  while (Date.now() < until) {
    scan = await getScan(t, id);
    if (predicate(scan)) return scan;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`Scan ${id} did not reach the expected state; last record: ${JSON.stringify(scan)}`);
}

export const isFinal = (scan: any): boolean => ['completed', 'failed', 'stopped'].includes(scan.state);

export async function waitFor<T>(probe: () => Promise<T | undefined | false>, what: string, timeoutMs = 20_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`Timed out waiting for ${what}`);
}

export async function searchIds(t: ScannerApp, index: string, q: string, baseUrl = t.search): Promise<string[]> {
  const res = await postJson(`${baseUrl}/v1/indexes/${index}/search`, { q, size: 1000, select: ['id'] });
  const body = await json(res);
  if (res.status !== 200) throw new Error(`search failed: ${JSON.stringify(body)}`);
  return body.hits.map((h: { id: string }) => h.id).sort();
}

export async function getDocument(t: ScannerApp, index: string, id: string, baseUrl = t.search): Promise<any> {
  const res = await fetch(`${baseUrl}/v1/indexes/${index}/documents/${encodeURIComponent(id)}`);
  if (res.status === 404) return undefined;
  const body = await json(res);
  return body.document ?? body;
}

export async function docCount(t: ScannerApp, index: string, baseUrl = t.search): Promise<number> {
  const res = await fetch(`${baseUrl}/v1/indexes/${index}`);
  if (res.status === 404) return -1;
  return (await json(res)).index.docCount;
}
