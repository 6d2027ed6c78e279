import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Store } from '../../runtime/store.js';
import { repoRoot, tempDir } from '../helpers/app.js';

describe('data directory lock', () => {
  it('refuses a second writer with store_locked naming the holder, and frees the directory on close', async () => {
    const dir = tempDir();
    const first = Store.open(dir);
    expect(() => Store.open(dir)).toThrowError(expect.objectContaining({ code: 'store_locked', details: { dir, pid: process.pid } }));
    // Readers take no lock.
    const reader = Store.open(dir, { readOnly: true });
    await reader.close();
    await first.close();
    const again = Store.open(dir);
    await again.close();
  });

  it('makes a second `tessera serve` on the same data directory exit 1 with store_locked', async () => {
    const dir = tempDir();
    const manifest = path.join(dir, 'manifest.json');
    writeFileSync(manifest, JSON.stringify({ name: 'lock', dataDir: path.join(dir, 'data'), listeners: [{ name: 'a', port: 0, plugins: [] }] }));
    const holder = Store.open(path.join(dir, 'data'));
    try {
      const child = spawn(process.execPath, [path.join(repoRoot, 'bin/tessera.js'), 'serve', '--manifest', manifest], { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (c) => (stderr += c));
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      expect(code).toBe(1);
      expect(stderr).toContain('store_locked');
      expect(stderr).toContain(`pid ${process.pid}`);
    } finally {
      await holder.close();
    }
  });
});
