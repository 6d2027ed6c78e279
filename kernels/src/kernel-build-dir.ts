import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { KernelBuildMissingError } from './errors.js';

/**
 * kernels/build holds what `npm run build:kernels` produces: the .wasm files and the transpiled
 * pool worker. This module runs from kernels/src (source, under vitest) or from dist/kernels/src
 * (after `npm run build`); both resolve to the one kernels/build at the project root.
 */
const candidates = [new URL('../build/', import.meta.url), new URL('../../../kernels/build/', import.meta.url)];

export function kernelBuildDir(): string {
  for (const url of candidates) {
    const dir = fileURLToPath(url);
    if (existsSync(dir)) return dir;
  }
  throw new KernelBuildMissingError('kernels/build does not exist: run `npm run build:kernels`');
}

export function kernelBuildFile(name: string): string {
  const path = kernelBuildDir() + name;
  if (!existsSync(path)) {
    throw new KernelBuildMissingError(`${path} does not exist: run \`npm run build:kernels\``);
  }
  return path;
}
