import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const here = (p: string): string => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  resolve: {
    // In-process tests load fixture plugins that import the package by name: give them the source
    // modules, so plugin and runtime share one copy (as they do in an installed deployment).
    alias: [
      { find: /^tessera-runtime\/plugin$/, replacement: here('./runtime/plugin.ts') },
      { find: /^tessera-runtime\/kernels$/, replacement: here('./kernels/src/index.ts') },
      { find: /^tessera-runtime\/testing$/, replacement: here('./runtime/testing/index.ts') },
      { find: /^tessera-runtime\/workflow$/, replacement: here('./plugins/workflow/dsl.ts') },
      { find: /^tessera-runtime\/plugins\/([a-z0-9-]+)$/, replacement: here('./plugins/$1/index.ts') },
      { find: /^tessera-runtime$/, replacement: here('./runtime/index.ts') },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    // Native addons (lmdb) and real listeners are simplest to reason about one process per file.
    pool: 'forks',
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
