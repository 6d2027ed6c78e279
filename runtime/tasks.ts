import type { Logger } from 'pino';

export interface TaskHandle {
  readonly name: string;
  readonly done: Promise<void>;
  /** Ask the task to stop (its signal aborts) and wait for it. */
  stop(): Promise<void>;
}

/**
 * Long-running background work owned by a plugin: scans, crawls, remediation jobs. Each task gets
 * an AbortSignal that fires on shutdown, and shutdown waits for every task to return. Resuming
 * after a restart is the plugin's part: keep progress in the store and start again in onStart.
 */
export class TaskRunner {
  private readonly running = new Set<TaskHandle>();
  private readonly log: Logger;
  private stopping = false;

  constructor(log: Logger) {
    this.log = log;
  }

  run(name: string, fn: (signal: AbortSignal) => Promise<void>): TaskHandle {
    if (this.stopping) throw new Error(`Cannot start task "${name}": shutting down`);
    const controller = new AbortController();
    const done = (async () => {
      try {
        await fn(controller.signal);
      } catch (err) {
        if (!controller.signal.aborted) this.log.error({ err, task: name }, 'background task failed');
      }
    })();
    const handle: TaskHandle = {
      name,
      done,
      stop: async () => {
        controller.abort();
        await done;
      },
    };
    this.running.add(handle);
    void done.finally(() => this.running.delete(handle));
    return handle;
  }

  get size(): number {
    return this.running.size;
  }

  async stopAll(): Promise<void> {
    this.stopping = true;
    await Promise.all([...this.running].map((t) => t.stop()));
  }
}
