import { Piscina } from 'piscina';
import { KernelRunnerClosedError, KernelWorkerError, kernelErrorFromWire } from './errors.js';
import type { KernelTask, KernelTaskResult } from './kernel-task.js';
import { resolveWorkerFile } from './resolve-worker-file.js';

export interface KernelPoolOptions {
  threads: number;
  module: WebAssembly.Module;
  memory: WebAssembly.Memory;
}

/**
 * Piscina workers that each instantiate the kernels on the shared memory. `run` resolves with the
 * kernel's return value or rejects with the KernelError the worker reported; a worker that dies is
 * replaced by Piscina and the pool keeps serving.
 */
export class KernelPool {
  private readonly piscina: Piscina<KernelTask, KernelTaskResult>;
  private closed = false;

  constructor(options: KernelPoolOptions) {
    this.piscina = new Piscina<KernelTask, KernelTaskResult>({
      filename: resolveWorkerFile(),
      minThreads: options.threads,
      maxThreads: options.threads,
      workerData: { module: options.module, memory: options.memory },
    });
    // A worker that fails outside a task (for instance while starting) also rejects the tasks that
    // needed it, which is where callers see it; without a listener the pool's 'error' event would
    // crash the host process instead.
    this.piscina.on('error', () => {});
  }

  get threads(): number {
    return this.piscina.maxThreads;
  }

  async run(task: KernelTask): Promise<number> {
    if (this.closed) throw new KernelRunnerClosedError();
    let result: KernelTaskResult;
    try {
      result = await this.piscina.run(task);
    } catch (error) {
      throw new KernelWorkerError(error instanceof Error ? error.message : String(error));
    }
    if ('error' in result) throw kernelErrorFromWire(result.error);
    return result.value;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.piscina.destroy();
  }
}
