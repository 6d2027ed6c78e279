import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestApp as createKitApp, type TestApp as KitTestApp } from 'tessera-runtime/testing';
import { resolveManifest, type ResolvedManifest } from '../../runtime/manifest.js';

export const fixturesDir = fileURLToPath(new URL('../fixtures/', import.meta.url));
export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

export function tempDir(prefix = 'tessera-test-'): string {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

/**
 * The public kit's app (`tessera-runtime/testing`), given a whole manifest the way most of our tests
 * write one, with its listeners bound (tests here talk HTTP to `url()`) and `stop()` for `close()`.
 */
export type TestApp = Omit<KitTestApp, 'close'> & { stop(): Promise<void> };

/** A manifest built in code: plugin modules resolve against `dir` (default test/fixtures). */
export function testManifest(input: Record<string, unknown>, dataDir: string, dir = fixturesDir): ResolvedManifest {
  return resolveManifest({ name: 'test', ...input }, { file: '(test manifest)', dir, dataDir });
}

/** `input` is a manifest without `name` and `dataDir`: `listeners` and `plugins` (with `module` paths resolved against `dir`). */
export async function createTestApp(input: Record<string, unknown>, options: { dataDir?: string; dir?: string } = {}): Promise<TestApp> {
  const { close, ...t } = await createKitApp({ plugins: [], manifest: input, dir: options.dir ?? fixturesDir, dataDir: options.dataDir, listen: true });
  return { ...t, stop: close };
}

export async function json(response: Response): Promise<any> {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`Expected JSON, got ${response.status}: ${text.slice(0, 200)}`);
  }
}

/** POST `body` as JSON. */
export function postJson(url: string, body: unknown): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}
