import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot, tempDir } from '../helpers/app.js';

/**
 * scripts/ensure-built.js (run before every vitest start and by `npm start`) rebuilds only what is
 * stale: the TypeScript output against the TypeScript sources, the kernel build against the kernel
 * sources. A planted tree with chosen file times; a rebuild there runs `npm run build`, which the
 * tree has no script for, so it shows as a non-zero exit with the "building" line.
 */
describe('ensure-built', () => {
  const root = tempDir('tessera-ensure-built-');
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const at = (file: string, minutes: number): void => {
    const full = path.join(root, file);
    mkdirSync(path.dirname(full), { recursive: true });
    writeFileSync(full, '');
    const t = new Date(Date.UTC(2026, 0, 1, 0, minutes));
    utimesSync(full, t, t);
  };
  mkdirSync(path.join(root, 'scripts'), { recursive: true });
  copyFileSync(path.join(repoRoot, 'scripts/ensure-built.js'), path.join(root, 'scripts/ensure-built.js'));
  writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: 'planted', type: 'module', scripts: {} }));
  utimesSync(path.join(root, 'package.json'), new Date(Date.UTC(2026, 0, 1)), new Date(Date.UTC(2026, 0, 1)));
  const run = () => spawnSync(process.execPath, ['scripts/ensure-built.js'], { cwd: root, encoding: 'utf8' });

  it('leaves a fresh build alone when a plugin changed after the kernels were last built', () => {
    at('kernels/assembly/bm25.ts', 1);
    at('kernels/build/kernels.wasm', 2);
    at('kernels/src/index.ts', 1);
    at('plugins/search/index.ts', 5);
    at('runtime/app.ts', 3);
    at('dist/runtime/cli.js', 6);
    const r = run();
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
  });

  it('rebuilds when a TypeScript source is newer than dist, or a kernel source newer than the kernel build', () => {
    at('plugins/search/index.ts', 7);
    expect(run().stderr).toContain('tessera: building (sources changed since the last build)');
    at('plugins/search/index.ts', 5);
    at('kernels/assembly/bm25.ts', 4);
    expect(run().stderr).toContain('tessera: building (sources changed since the last build)');
  });
});
