import {
  Counter,
  Gauge,
  Histogram,
  Registry,
  collectDefaultMetrics,
  type CounterConfiguration,
  type GaugeConfiguration,
  type HistogramConfiguration,
} from 'prom-client';

/** What a plugin gets as `ctx.metrics`: the one registry, and factories that register into it. */
export interface PluginMetrics {
  registry: Registry;
  counter<T extends string>(config: Omit<CounterConfiguration<T>, 'registers'>): Counter<T>;
  gauge<T extends string>(config: Omit<GaugeConfiguration<T>, 'registers'>): Gauge<T>;
  histogram<T extends string>(config: Omit<HistogramConfiguration<T>, 'registers'>): Histogram<T>;
}

/**
 * One prom-client registry per application: request count and latency by listener, route pattern
 * (never the raw path, which would explode cardinality) and status; process metrics; and whatever
 * plugins register.
 */
export class RuntimeMetrics implements PluginMetrics {
  readonly registry = new Registry();
  readonly requests: Counter<'listener' | 'method' | 'route' | 'status'>;
  readonly duration: Histogram<'listener' | 'method' | 'route' | 'status'>;

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    // prom-client names three gauges `*_total`, a suffix Prometheus reserves for counters (promtool
    // rejects them); its `nodejs_active_resources{type}` gauge already says the same.
    for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) {
      this.registry.removeSingleMetric(name);
    }
    this.requests = this.counter({
      name: 'tessera_http_requests_total',
      help: 'HTTP requests answered, by listener, method, route pattern and status.',
      labelNames: ['listener', 'method', 'route', 'status'],
    });
    this.duration = this.histogram({
      name: 'tessera_http_request_duration_seconds',
      help: 'Time from request start to response handed to the server, by route pattern.',
      labelNames: ['listener', 'method', 'route', 'status'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    });
  }

  counter<T extends string>(config: Omit<CounterConfiguration<T>, 'registers'>): Counter<T> {
    return new Counter({ ...config, registers: [this.registry] } as CounterConfiguration<T>);
  }

  gauge<T extends string>(config: Omit<GaugeConfiguration<T>, 'registers'>): Gauge<T> {
    return new Gauge({ ...config, registers: [this.registry] } as GaugeConfiguration<T>);
  }

  histogram<T extends string>(config: Omit<HistogramConfiguration<T>, 'registers'>): Histogram<T> {
    return new Histogram({ ...config, registers: [this.registry] } as HistogramConfiguration<T>);
  }

  /** Label sets are few (listener x route x status); hashing them once per request is not free. */
  private readonly requestSeries = new Map<string, { count: { inc(): void }; time: { observe(v: number): void } }>();

  observeRequest(listener: string, method: string, route: string, status: number, seconds: number): void {
    const key = `${listener}\u0000${method}\u0000${route}\u0000${status}`;
    let series = this.requestSeries.get(key);
    if (!series) {
      const labels = { listener, method, route, status: String(status) };
      series = { count: this.requests.labels(labels), time: this.duration.labels(labels) };
      this.requestSeries.set(key, series);
    }
    series.count.inc();
    series.time.observe(seconds);
  }
}
