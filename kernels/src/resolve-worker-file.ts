import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { kernelBuildFile } from './kernel-build-dir.js';

/**
 * Worker threads need a real .js file. After `npm run build` it sits beside this module in
 * dist/kernels/src. From source (vitest) there is only kernel-worker.ts, so the copy transpiled by
 * `npm run build:kernels` into kernels/build/worker is used instead.
 */
export function resolveWorkerFile(): string {
  const sibling = fileURLToPath(new URL('./kernel-worker.js', import.meta.url));
  if (existsSync(sibling)) return sibling;
  return kernelBuildFile('worker/kernel-worker.js');
}
