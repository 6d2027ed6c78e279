import { readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { App } from '../../runtime/app.js';
import { isTesseraError } from '../../runtime/errors.js';
import { createLogger } from '../../runtime/logger.js';
import { loadManifest } from '../../runtime/manifest.js';
import { fixturesDir, json, tempDir } from '../helpers/app.js';

interface Expected {
  ok?: boolean;
  order?: string[];
  code?: string;
  plugin?: string;
  message?: string[];
  issues?: string[];
}

const root = path.join(fixturesDir, 'manifests');
const cases = readdirSync(root).sort();

/** One folder per case: manifest.json (plus any plugin files it names) and expected.json. */
describe('manifest fixtures', () => {
  it('has the cases the runtime promises to diagnose', () => {
    expect(cases).toEqual(expect.arrayContaining(['valid', 'unknown-key', 'missing-dependency', 'cycle', 'bad-module-path', 'invalid-options']));
  });

  for (const name of cases) {
    const dir = path.join(root, name);
    const expected = JSON.parse(readFileSync(path.join(dir, 'expected.json'), 'utf8')) as Expected;
    it(expected.ok ? `${name}: loads and serves` : `${name}: fails with ${expected.code}`, async () => {
      const dataDir = tempDir();
      const logger = createLogger({ level: 'silent' });
      try {
        let app: App | undefined;
        let error: unknown;
        try {
          app = await App.create(loadManifest(path.join(dir, 'manifest.json'), { dataDir }), { logger });
        } catch (err) {
          error = err;
        }
        if (expected.ok) {
          expect(error).toBeUndefined();
          await app!.start();
          const url = app!.url('main');
          // Plugins were set up in dependency order even though the manifest lists consumer first.
          expect(await json(await fetch(`${url}/welcome/Ada`))).toEqual({ ok: true, text: 'Hi, Ada!' });
          await app!.stop();
          return;
        }
        expect(app).toBeUndefined();
        expect(isTesseraError(error)).toBe(true);
        const err = error as { code: string; message: string; plugin?: string; details?: { issues?: Array<{ path: string }> } };
        expect(err.code).toBe(expected.code);
        if (expected.plugin) expect(err.plugin).toBe(expected.plugin);
        for (const part of expected.message ?? []) expect(err.message).toContain(part);
        if (expected.issues) expect(err.details?.issues?.map((i) => i.path).sort()).toEqual(expected.issues);
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    });
  }
});
