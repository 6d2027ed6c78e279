import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { checkPluginBoundary } from '../helpers/plugin-boundary.js';

const pluginsDir = fileURLToPath(new URL('../../plugins', import.meta.url));

describe('the plugin boundary', () => {
  it('holds for every built-in plugin', () => {
    expect(checkPluginBoundary(pluginsDir)).toEqual([]);
  });

  describe('on a planted tree', () => {
    const root = mkdtempSync(join(tmpdir(), 'tessera-boundary-'));
    afterAll(() => rmSync(root, { recursive: true, force: true }));
    const plant = (path: string, text: string): void => {
      const full = join(root, path);
      mkdirSync(dirname(full), { recursive: true });
      writeFileSync(full, text);
    };
    plant(
      'plugins/good/index.ts',
      "import { definePlugin } from 'tessera-runtime/plugin';\nimport type { KernelRunner } from 'tessera-runtime/kernels';\nimport { z } from 'zod';\nimport { readFile } from 'node:fs/promises';\nimport { helper } from './lib/helper.js';\nexport { helper, definePlugin, z, readFile };\nexport type { KernelRunner };\n",
    );
    plant('plugins/good/lib/helper.ts', "import { definePlugin } from '../../good/index.js';\nexport const helper = definePlugin;\n");
    plant('plugins/other/index.ts', "import { helper } from '../good/index.js';\nexport const again = helper;\n");
    plant(
      'plugins/bad/index.ts',
      [
        "import { Store } from '../../runtime/store.js';",
        "export { mulberry32 } from '../../kernels/src/prng.js';",
        "import { helper } from '../good/lib/helper.js';",
        "import { createApp } from 'tessera-runtime';",
        "import { startTestApp } from 'tessera-runtime/testing';",
        "const later = () => import('../../runtime/app.js');",
        'export { Store, helper, createApp, startTestApp, later };',
        '',
      ].join('\n'),
    );

    it('names each deep import with its file, line and reason', () => {
      const found = checkPluginBoundary(join(root, 'plugins'));
      expect(found.map((v) => [v.file, v.line, v.specifier])).toEqual([
        ['bad/index.ts', 1, '../../runtime/store.js'],
        ['bad/index.ts', 2, '../../kernels/src/prng.js'],
        ['bad/index.ts', 3, '../good/lib/helper.js'],
        ['bad/index.ts', 4, 'tessera-runtime'],
        ['bad/index.ts', 5, 'tessera-runtime/testing'],
        ['bad/index.ts', 6, '../../runtime/app.js'],
      ]);
      expect(found[0]!.reason).toBe('reaches outside plugins/ into runtime/store.js');
      expect(found[2]!.reason).toContain('plugin "good"');
    });
  });
});
