import { describe, expect, it } from 'vitest';
import {
  KernelAbortError,
  KernelBuildMissingError,
  KernelError,
  kernelErrorCodes,
  KernelInvalidInputError,
  KernelOutOfMemoryError,
  KernelRegionReleasedError,
  KernelRunnerClosedError,
  KernelTrapError,
  KernelWorkerError,
} from '../../kernels/src/index.js';
import { kernelErrorFromWire, kernelErrorToWire, toKernelError } from '../../kernels/src/errors.js';

const instances: KernelError[] = [
  new KernelInvalidInputError('m'),
  new KernelRegionReleasedError('m'),
  new KernelOutOfMemoryError('m'),
  new KernelAbortError('m'),
  new KernelTrapError('m'),
  new KernelBuildMissingError('m'),
  new KernelRunnerClosedError(),
  new KernelWorkerError('m'),
];

describe('kernel errors', () => {
  it('gives every error class a catalogued code and status, and catalogues nothing else', () => {
    const catalogue = new Map(kernelErrorCodes.map((c) => [c.code, c.status]));
    expect(instances.map((e) => [e.code, e.status])).toEqual(instances.map((e) => [e.code, catalogue.get(e.code)]));
    expect(new Set(instances.map((e) => e.code))).toEqual(new Set(catalogue.keys()));
    for (const e of instances) expect(e.code).toMatch(/^kernel_[a-z_]+$/);
  });

  it('rebuilds the same class, code and message after crossing the worker boundary', () => {
    for (const e of instances) {
      const back = kernelErrorFromWire(structuredClone(kernelErrorToWire(e)));
      expect(back).toBeInstanceOf(e.constructor);
      expect([back.name, back.code, back.status, back.message]).toEqual([e.name, e.code, e.status, e.message]);
    }
  });

  it('classifies WebAssembly traps as kernel_trap and anything else as kernel_worker_failed', () => {
    expect(toKernelError(new WebAssembly.RuntimeError('memory access out of bounds'))).toMatchObject({ code: 'kernel_trap' });
    expect(toKernelError(new TypeError('boom'))).toMatchObject({ code: 'kernel_worker_failed', message: 'boom' });
  });
});
