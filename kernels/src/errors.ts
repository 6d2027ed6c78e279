import { TesseraError } from '../../runtime/errors.js';

/**
 * Every kernel error has a stable snake_case `code` and the HTTP status the runtime answers with
 * (it is a TesseraError, so a route that lets one through answers its documented status:
 * `kernel_out_of_memory` is a 503, not a 500). Errors cross the worker boundary as
 * `{ code, message }` and are rebuilt on the main thread by `kernelErrorFromWire`, so the class and
 * code survive the pool.
 */
export class KernelError extends TesseraError {
  constructor(code: string, message: string, status = 500) {
    super(code, status, message);
    this.name = 'KernelError';
  }
}

/** Bad arguments: wrong lengths or dimensions, k < 1, non-finite numbers, unknown metric. */
export class KernelInvalidInputError extends KernelError {
  constructor(message: string) {
    super('kernel_invalid_input', message, 400);
    this.name = 'KernelInvalidInputError';
  }
}

/** A block or region was used after `release()` / `free()`. */
export class KernelRegionReleasedError extends KernelError {
  constructor(message: string) {
    super('kernel_region_released', message, 500);
    this.name = 'KernelRegionReleasedError';
  }
}

/** The shared memory cannot grow to fit an allocation (its maximum is reached). */
export class KernelOutOfMemoryError extends KernelError {
  constructor(message: string) {
    super('kernel_out_of_memory', message, 503);
    this.name = 'KernelOutOfMemoryError';
  }
}

/** AssemblyScript called `abort()`: a kernel refused its arguments. */
export class KernelAbortError extends KernelError {
  constructor(message: string) {
    super('kernel_abort', message, 500);
    this.name = 'KernelAbortError';
  }
}

/** The WebAssembly engine trapped (out-of-bounds access, unreachable). */
export class KernelTrapError extends KernelError {
  constructor(message: string) {
    super('kernel_trap', message, 500);
    this.name = 'KernelTrapError';
  }
}

/** kernels/build is missing the .wasm or the worker: `npm run build:kernels` was not run. */
export class KernelBuildMissingError extends KernelError {
  constructor(message: string) {
    super('kernel_build_missing', message, 500);
    this.name = 'KernelBuildMissingError';
  }
}

/** The runner was used after `close()`. */
export class KernelRunnerClosedError extends KernelError {
  constructor() {
    super('kernel_runner_closed', 'the kernel runner is closed', 503);
    this.name = 'KernelRunnerClosedError';
  }
}

/** A pool worker failed outside any kernel (it crashed or could not start). */
export class KernelWorkerError extends KernelError {
  constructor(message: string) {
    super('kernel_worker_failed', message, 500);
    this.name = 'KernelWorkerError';
  }
}

export interface KernelErrorWire {
  code: string;
  message: string;
}

const byCode: Record<string, (message: string) => KernelError> = {
  kernel_invalid_input: (m) => new KernelInvalidInputError(m),
  kernel_region_released: (m) => new KernelRegionReleasedError(m),
  kernel_out_of_memory: (m) => new KernelOutOfMemoryError(m),
  kernel_abort: (m) => new KernelAbortError(m),
  kernel_trap: (m) => new KernelTrapError(m),
  kernel_build_missing: (m) => new KernelBuildMissingError(m),
  kernel_runner_closed: () => new KernelRunnerClosedError(),
  kernel_worker_failed: (m) => new KernelWorkerError(m),
};

/** Classifies anything a kernel call threw: abort and traps get their own codes. */
export function toKernelError(error: unknown): KernelError {
  if (error instanceof KernelError) return error;
  if (error instanceof WebAssembly.RuntimeError) return new KernelTrapError(error.message);
  const message = error instanceof Error ? error.message : String(error);
  return new KernelWorkerError(message);
}

export function kernelErrorToWire(error: KernelError): KernelErrorWire {
  return { code: error.code, message: error.message };
}

export function kernelErrorFromWire(wire: KernelErrorWire): KernelError {
  const make = byCode[wire.code];
  return make ? make(wire.message) : new KernelError(wire.code, wire.message);
}

/**
 * The kernel error catalogue, one line per code, in the runtime's `ErrorCodeDoc` shape so
 * scripts/generate-docs.ts can render it into docs/errors.md.
 */
export const kernelErrorCodes: readonly { code: string; status: number; when: string }[] = [
  {
    code: 'kernel_invalid_input',
    status: 400,
    when: 'A kernel call or load had bad arguments: wrong length or dimensions, k < 1, a non-finite number, an unknown metric or option.',
  },
  { code: 'kernel_region_released', status: 500, when: 'A block or region was used or freed after it had been released.' },
  { code: 'kernel_out_of_memory', status: 503, when: 'The shared kernel memory would have to grow past `maximumMemoryMb`.' },
  { code: 'kernel_abort', status: 500, when: 'An AssemblyScript kernel called `abort()` (it refused its arguments).' },
  { code: 'kernel_trap', status: 500, when: 'The WebAssembly engine trapped inside a kernel (out-of-bounds access).' },
  { code: 'kernel_build_missing', status: 500, when: 'kernels/build has no .wasm or worker: run `npm run build:kernels`.' },
  { code: 'kernel_runner_closed', status: 503, when: 'The kernel runner was used after `close()`.' },
  { code: 'kernel_worker_failed', status: 500, when: 'A pool worker failed outside any kernel (it crashed or could not start).' },
];
