import type { Counter, Histogram } from 'prom-client';
import type { PluginMetrics } from '../metrics.js';

export interface JobGaugeSource {
  /** Per job name: queued and running counts right now. */
  counts(): Iterable<{ plugin: string; job: string; queued: number; running: number }>;
}

/** One set of job metrics per application, labelled by plugin and job name. */
export class JobMetrics {
  readonly finished: Counter<'plugin' | 'job' | 'state'>;
  readonly duration: Histogram<'plugin' | 'job' | 'state'>;
  private readonly sources: JobGaugeSource[] = [];

  constructor(metrics: PluginMetrics) {
    const sources = this.sources;
    metrics.gauge({
      name: 'tessera_jobs_queued',
      help: 'Jobs waiting to run (including those waiting out a retry delay), by plugin and job name.',
      labelNames: ['plugin', 'job'],
      collect() {
        this.reset();
        for (const source of sources) for (const c of source.counts()) this.set({ plugin: c.plugin, job: c.job }, c.queued);
      },
    });
    metrics.gauge({
      name: 'tessera_jobs_running',
      help: 'Jobs running now, by plugin and job name.',
      labelNames: ['plugin', 'job'],
      collect() {
        this.reset();
        for (const source of sources) for (const c of source.counts()) this.set({ plugin: c.plugin, job: c.job }, c.running);
      },
    });
    this.finished = metrics.counter({
      name: 'tessera_jobs_finished_total',
      help: 'Jobs that reached a final state (completed, failed, cancelled, interrupted), by plugin and job name.',
      labelNames: ['plugin', 'job', 'state'],
    });
    this.duration = metrics.histogram({
      name: 'tessera_job_duration_seconds',
      help: 'Duration of job attempts, by plugin, job name and how the attempt ended.',
      labelNames: ['plugin', 'job', 'state'],
      buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 1800, 7200],
    });
  }

  addSource(source: JobGaugeSource): void {
    this.sources.push(source);
  }
}
