import { KernelAbortError } from './errors.js';
import type { KernelExports } from './kernel-exports.js';

/** AssemblyScript strings carry their UTF-16 byte length 4 bytes before the payload. */
function readString(memory: WebAssembly.Memory, ptr: number): string {
  if (ptr === 0) return '';
  const buffer = memory.buffer;
  const bytes = new Uint32Array(buffer, ptr - 4, 1)[0]!;
  const units = new Uint16Array(buffer, ptr, bytes >>> 1);
  let out = '';
  for (let i = 0; i < units.length; i++) out += String.fromCharCode(units[i]!);
  return out;
}

/**
 * Instantiates the kernels on a shared memory. Used by the main thread and by every pool worker,
 * so all of them see the same bytes. An AssemblyScript `abort()` becomes a thrown KernelAbortError.
 */
export function instantiateKernels(module: WebAssembly.Module, memory: WebAssembly.Memory): KernelExports {
  const imports = {
    env: {
      memory,
      abort(messagePtr: number, filePtr: number, line: number, column: number): never {
        const message = readString(memory, messagePtr);
        const file = readString(memory, filePtr);
        throw new KernelAbortError(`${message} (${file}:${line}:${column})`);
      },
    },
  };
  const instance = new WebAssembly.Instance(module, imports);
  return instance.exports as unknown as KernelExports;
}
