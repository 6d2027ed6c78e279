import { KernelInvalidInputError, kernelErrorToWire, toKernelError, type KernelErrorWire } from './errors.js';
import { TASK_KERNELS, type KernelExports, type KernelName } from './kernel-exports.js';

/** What crosses to a worker: a kernel name and its numeric arguments (offsets, never data). */
export interface KernelTask {
  kernel: KernelName;
  args: number[];
}

export type KernelTaskResult = { value: number } | { error: KernelErrorWire };

/**
 * Runs one task on an instance. The main thread (inline) and the workers share this function, so
 * a task behaves the same wherever it runs; failures come back as data so their codes survive
 * the structured clone.
 */
export function runKernelTask(exports: KernelExports, task: KernelTask): KernelTaskResult {
  try {
    if (!TASK_KERNELS.includes(task.kernel)) {
      throw new KernelInvalidInputError(`unknown kernel ${JSON.stringify(task.kernel)}`);
    }
    const fn = exports[task.kernel] as (...args: number[]) => number;
    return { value: fn(...task.args) };
  } catch (error) {
    return { error: kernelErrorToWire(toKernelError(error)) };
  }
}
