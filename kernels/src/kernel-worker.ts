import { workerData } from 'node:worker_threads';
import { instantiateKernels } from './instantiate-kernels.js';
import { runKernelTask, type KernelTask, type KernelTaskResult } from './kernel-task.js';

/**
 * The Piscina worker. It receives the compiled module and the shared memory once, in workerData,
 * and instantiates the kernels on that memory, so every task is a function call on offsets.
 * Loaded from dist/kernels/src after `npm run build`, or from kernels/build/worker (transpiled by
 * scripts/build-kernels.js) when the host runs from source.
 */
const { module, memory } = workerData as { module: WebAssembly.Module; memory: WebAssembly.Memory };
const kernels = instantiateKernels(module, memory);

export default function run(task: KernelTask): KernelTaskResult {
  return runKernelTask(kernels, task);
}
