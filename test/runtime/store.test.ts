import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { open } from 'lmdb';
import path from 'node:path';
import { STORE_FORMAT_VERSION, Store } from '../../runtime/store.js';
import { tempDir } from '../helpers/app.js';

describe('Store', () => {
  const dirs: string[] = [];
  const fresh = (): string => {
    const dir = tempDir();
    dirs.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('gives each plugin its own namespace of named databases', async () => {
    const store = Store.open(fresh());
    const a = store.namespace('alpha').db<string, string>('docs');
    const b = store.namespace('beta').db<string, string>('docs');
    await a.put('k', 'from alpha');
    await b.put('k', 'from beta');
    expect(a.get('k')).toBe('from alpha');
    expect(b.get('k')).toBe('from beta');
    await store.close();
  });

  it('stamps a new store with the current format version and reopens it', async () => {
    const dir = fresh();
    const store = Store.open(dir);
    expect(store.formatVersion).toBe(STORE_FORMAT_VERSION);
    await store.close();
    const again = Store.open(dir);
    expect(again.formatVersion).toBe(STORE_FORMAT_VERSION);
    await again.close();
  });

  it('refuses a store written by a newer format with store_version_unsupported', async () => {
    const dir = fresh();
    const raw = open({ path: path.join(dir, 'tessera.mdb'), maxDbs: 8 });
    raw.openDB({ name: '__tessera_meta' }).putSync('formatVersion', STORE_FORMAT_VERSION + 1);
    await raw.close();
    expect(() => Store.open(dir)).toThrowError(expect.objectContaining({ code: 'store_version_unsupported' }));
    try {
      Store.open(dir);
    } catch (err) {
      expect((err as Error).message).toBe(
        `The store in ${dir} has format version ${STORE_FORMAT_VERSION + 1}, newer than this build of Tessera reads (${STORE_FORMAT_VERSION}). Upgrade Tessera or point --data-dir elsewhere.`,
      );
    }
  });

  it("tracks a plugin's own data format and refuses a newer one", async () => {
    const dir = fresh();
    const store = Store.open(dir);
    const ns = store.namespace('search');
    expect(ns.checkFormat(2)).toBeUndefined();
    // Nothing is recorded until the plugin says its migration is done.
    expect(ns.checkFormat(2)).toBeUndefined();
    ns.commitFormat(2);
    expect(ns.checkFormat(2)).toBe(2);
    expect(ns.checkFormat(3)).toBe(2);
    expect(() => ns.checkFormat(1)).toThrowError(expect.objectContaining({ code: 'store_version_unsupported' }));
    expect(() => ns.db('bad/name')).toThrowError(expect.objectContaining({ code: 'store_invalid_name' }));
    await store.close();
  });
});
