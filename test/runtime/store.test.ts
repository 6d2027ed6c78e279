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

  it("records a plugin's data format on a fresh store without migrating, and refuses a newer one", async () => {
    const dir = fresh();
    const store = Store.open(dir);
    const ns = store.namespace('search');
    const calls: number[] = [];
    expect(ns.formatVersion()).toBeUndefined();
    expect(await ns.format(2, (from) => void calls.push(from))).toEqual({ from: undefined, to: 2, migrated: false });
    expect(ns.formatVersion()).toBe(2);
    expect(await ns.format(2, (from) => void calls.push(from))).toEqual({ from: 2, to: 2, migrated: false });
    expect(calls).toEqual([]);
    await expect(ns.format(1)).rejects.toMatchObject({ code: 'store_version_unsupported' });
    await expect(ns.format(0)).rejects.toMatchObject({ code: 'store_format_invalid' });
    expect(ns.formatVersion()).toBe(2);
    expect(() => ns.db('bad/name')).toThrowError(expect.objectContaining({ code: 'store_invalid_name' }));
    await store.close();
  });

  it('runs the migration from the recorded format and records the new one only after it succeeded', async () => {
    const store = Store.open(fresh());
    const ns = store.namespace('notes');
    await ns.format(1);
    let attempts = 0;
    const failing = async (): Promise<void> => {
      attempts++;
      throw new Error('disk full');
    };
    await expect(ns.format(2, failing)).rejects.toMatchObject({
      code: 'store_migration_failed',
      message: expect.stringContaining('from format 1 to 2: disk full'),
    });
    expect(ns.formatVersion()).toBe(1);
    await expect(ns.format(2)).rejects.toMatchObject({ code: 'store_migration_failed', message: expect.stringContaining('gives no migration') });
    const seen: number[] = [];
    expect(await ns.format(2, (from) => void seen.push(from))).toEqual({ from: 1, to: 2, migrated: true });
    expect([attempts, seen, ns.formatVersion()]).toEqual([1, [1], 2]);
    await store.close();
  });

  it('migrates data written before any format was recorded from `unversioned`', async () => {
    const store = Store.open(fresh());
    const ns = store.namespace('legacy');
    const seen: number[] = [];
    expect(await ns.format(3, (from) => void seen.push(from), { unversioned: 1 })).toEqual({ from: undefined, to: 3, migrated: true });
    expect([seen, ns.formatVersion()]).toEqual([[1], 3]);
    await store.close();
  });
});
