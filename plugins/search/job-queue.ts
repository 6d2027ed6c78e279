/**
 * Runs background jobs at most `concurrency()` at a time, in the order they were queued. The
 * search engine shares one between its indexes for graph builds, sized to the kernel pool, so
 * builds use every pool thread and never more.
 */
export class JobQueue {
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly concurrency: () => number;

  constructor(concurrency: () => number) {
    this.concurrency = concurrency;
  }

  /** Queues `job`; the promise settles with it. */
  async run<T>(job: () => Promise<T>): Promise<T> {
    if (this.running >= Math.max(1, this.concurrency())) {
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running++;
    }
    try {
      return await job();
    } finally {
      // Hand the slot straight to the next job, so the count never dips and lets a newcomer jump the line.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
