import { readFileSync } from 'node:fs';
import { kernelBuildFile } from './kernel-build-dir.js';

/** `release` is -O3 without assertions; `debug` keeps assertions and names (tests run both). */
export type KernelBuild = 'release' | 'debug';

const files: Record<KernelBuild, string> = { release: 'kernels.wasm', debug: 'kernels.debug.wasm' };
const compiled = new Map<KernelBuild, WebAssembly.Module>();

/**
 * Compiles the kernels synchronously (the runtime creates the runner from a getter) and once per
 * process: a compiled module is shared by every runner and posted to every worker.
 */
export function loadKernelModule(build: KernelBuild = 'release'): WebAssembly.Module {
  let module = compiled.get(build);
  if (!module) {
    module = new WebAssembly.Module(readFileSync(kernelBuildFile(files[build])));
    compiled.set(build, module);
  }
  return module;
}
