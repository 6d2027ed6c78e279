import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { App } from '../../runtime/app.js';
import { createLogger } from '../../runtime/logger.js';
import { resolveManifest, type ResolvedManifest } from '../../runtime/manifest.js';

export const fixturesDir = fileURLToPath(new URL('../fixtures/', import.meta.url));
export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

export function tempDir(prefix = 'tessera-test-'): string {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

export interface TestApp {
  app: App;
  manifest: ResolvedManifest;
  dataDir: string;
  /** Structured log lines written so far. */
  logs: Array<Record<string, unknown>>;
  url(listener?: string): string;
  stop(): Promise<void>;
}

/** A manifest built in code: plugin modules resolve against `dir` (default test/fixtures). */
export function testManifest(input: Record<string, unknown>, dataDir: string, dir = fixturesDir): ResolvedManifest {
  return resolveManifest({ name: 'test', ...input }, { file: '(test manifest)', dir, dataDir });
}

export async function createTestApp(input: Record<string, unknown>, options: { dataDir?: string; start?: boolean; dir?: string } = {}): Promise<TestApp> {
  const dataDir = options.dataDir ?? tempDir();
  const manifest = testManifest(input, dataDir, options.dir);
  const logs: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      for (const line of String(chunk).split('\n')) if (line.trim()) logs.push(JSON.parse(line) as Record<string, unknown>);
      callback();
    },
  });
  const logger = createLogger({ level: 'info', destination });
  const app = await App.create(manifest, { logger });
  if (options.start !== false) await app.start();
  return {
    app,
    manifest,
    dataDir,
    logs,
    url: (listener = manifest.listeners[0]!.name) => app.url(listener),
    stop: async () => {
      await app.stop();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
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
