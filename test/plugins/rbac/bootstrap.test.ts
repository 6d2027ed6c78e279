import { createHash } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/app.js';
import { bootstrapLine, call, startRbac } from './helpers.js';

describe('bootstrap and storage', () => {
  const dataDir = tempDir();
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  let bootstrapKey = '';
  const createdKeys: string[] = [];

  it('prints one admin key to the log on the first start with an empty store, and it works', async () => {
    const r = await startRbac({ dataDir });
    try {
      const lines = r.t.logs.filter((l) => JSON.stringify(l).includes('tsk_'));
      expect(lines).toHaveLength(1);
      const line = bootstrapLine(r.t.logs)!;
      bootstrapKey = line.apiKey;
      expect(bootstrapKey).toMatch(/^tsk_[0-9a-z]{9}[0-9A-Za-z]{50}$/);
      expect(line).toMatchObject({
        level: 'warn',
        plugin: 'rbac',
        tenant: 'default',
        user: 'admin',
        keyId: bootstrapKey.slice(4, 20),
        msg: 'Bootstrap admin API key (the apiKey field), shown only this once; store it now',
      });
      // The secret appears once in its line.
      expect(JSON.stringify(line).split(bootstrapKey).length - 1).toBe(1);
      const me = await r.call('GET', '/hub/me');
      expect(me.status).toBe(200);
      expect(me.body).toMatchObject({
        tenant: 'default',
        user: { name: 'admin', roles: ['superadmin'] },
        key: { id: line.keyId, name: 'bootstrap', state: 'active' },
      });
      for (const name of ['one', 'two']) {
        createdKeys.push((await r.call('POST', '/hub/rbac/keys', { body: { name } })).body.secret);
      }
    } finally {
      await r.stop();
    }
  });

  it('prints nothing on later starts, and the stored key still works', async () => {
    const r = await startRbac({ dataDir });
    try {
      expect(bootstrapLine(r.t.logs)).toBeUndefined();
      expect(r.t.logs.filter((l) => JSON.stringify(l).includes('tsk_'))).toEqual([]);
      expect((await call(r.t.url('hub'), 'GET', '/hub/me', { key: bootstrapKey })).body.user.name).toBe('admin');
      expect((await call(r.t.url('hub'), 'GET', '/hub/me', { key: createdKeys[0] })).status).toBe(200);
    } finally {
      await r.stop();
    }
  });

  it("keeps only hashes in the store: the LMDB file holds each key's SHA-256 and never the key or its secret part", () => {
    const bytes = readFileSync(path.join(dataDir, 'tessera.mdb'));
    for (const key of [bootstrapKey, ...createdKeys]) {
      expect(bytes.includes(Buffer.from(key))).toBe(false);
      expect(bytes.includes(Buffer.from(key.slice(20)))).toBe(false);
      expect(bytes.includes(Buffer.from(key.slice(20, 36)))).toBe(false);
      // The scan looks in the right place: the hash and the display prefix are there.
      expect(bytes.includes(Buffer.from(createHash('sha256').update(key).digest('hex')))).toBe(true);
      expect(bytes.includes(Buffer.from(key.slice(0, 20)))).toBe(true);
    }
  });
});
