import { describe, expect, it } from 'vitest';
import { JobQueue } from '../../../plugins/search/job-queue.js';

describe('JobQueue', () => {
  it('runs at most `concurrency` jobs at once, starting them in the order queued', async () => {
    const queue = new JobQueue(() => 2);
    let running = 0;
    let peak = 0;
    const started: number[] = [];
    const release: Array<() => void> = [];
    const jobs = Array.from({ length: 5 }, (_, i) => queue.run(async () => {
      started.push(i);
      running++;
      peak = Math.max(peak, running);
      await new Promise<void>((resolve) => release.push(resolve));
      running--;
      return i * 10;
    }));
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([0, 1]);
    // Finishing job 1 first lets job 2, not a later one, take its slot.
    release[1]!();
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([0, 1, 2]);
    for (let i = 0; i < 5; i++) {
      release[i]?.();
      await new Promise((r) => setImmediate(r));
    }
    for (const r of release) r();
    expect(await Promise.all(jobs)).toEqual([0, 10, 20, 30, 40]);
    expect(peak).toBe(2);
  });

  it('passes a failing job\'s error to its caller and goes on with the next', async () => {
    const queue = new JobQueue(() => 1);
    const failing = queue.run(async () => {
      throw new Error('boom');
    });
    const next = queue.run(async () => 'next');
    await expect(failing).rejects.toThrow('boom');
    expect(await next).toBe('next');
  });

  it('treats a concurrency below 1 as 1', async () => {
    const queue = new JobQueue(() => 0);
    expect(await queue.run(async () => 'ran')).toBe('ran');
  });
});
