import { execFileSync } from 'node:child_process';

/**
 * Child-process tests run the real CLI from dist/, and the kernels load compiled WASM: build both
 * when they are missing or older than the sources (`npm test` has already built them).
 */
export default function setup(): void {
  execFileSync(process.execPath, ['scripts/ensure-built.js'], { stdio: 'inherit' });
}
