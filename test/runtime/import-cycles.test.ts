import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { importCycles } from '../helpers/import-cycles.js';

const pluginsDir = fileURLToPath(new URL('../../plugins', import.meta.url));
const runtimeDir = fileURLToPath(new URL('../../runtime', import.meta.url));

describe('import cycles', () => {
  it('no built-in plugin has one, type-only imports included', () => {
    expect(importCycles(pluginsDir)).toEqual([]);
  });

  it('the runtime has none, type-only imports included', () => {
    expect(importCycles(runtimeDir)).toEqual([]);
  });

  describe('on a planted tree', () => {
    const root = mkdtempSync(join(tmpdir(), 'tessera-cycles-'));
    afterAll(() => rmSync(root, { recursive: true, force: true }));
    const plant = (path: string, text: string): void => {
      const full = join(root, path);
      mkdirSync(dirname(full), { recursive: true });
      writeFileSync(full, text);
    };
    plant('a/settings.ts', "import { models } from '../b/embedder.js';\nexport type Settings = { model: (typeof models)[number] };\n");
    plant('b/embedder.ts', "import type { Settings } from '../a/settings.js';\nexport const models = ['m'] as const;\nexport type S = Settings;\n");
    plant('c/leaf.ts', "import { models } from '../b/embedder.js';\nimport { z } from 'zod';\nexport const m = models;\nexport { z };\n");
    plant('d/self.ts', "export * from './self.js';\n");

    it('finds a circle closed by a type-only import, and a file importing itself; nothing else', () => {
      expect(importCycles(root).sort()).toEqual([['a/settings.ts', 'b/embedder.ts'], ['d/self.ts']]);
    });
  });
});
