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
import { PluginError } from './plugin-error.js';
import { RequestMetrics, type Series } from './request-metrics.js';

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
  private readonly http: RequestMetrics;

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    // prom-client names three gauges `*_total`, a suffix Prometheus reserves for counters (promtool
    // rejects them); its `nodejs_active_resources{type}` gauge already says the same.
    for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) {
      this.registry.removeSingleMetric(name);
    }
    this.http = new RequestMetrics(this.registry, [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]);
  }

  /** Which plugin registered each metric name ("runtime" for the runtime's own). */
  private readonly owners = new Map<string, string>();

  counter<T extends string>(config: Omit<CounterConfiguration<T>, 'registers'>): Counter<T> {
    return this.claim('runtime', config.name, () => new Counter({ ...config, registers: [this.registry] } as CounterConfiguration<T>));
  }

  gauge<T extends string>(config: Omit<GaugeConfiguration<T>, 'registers'>): Gauge<T> {
    return this.claim('runtime', config.name, () => new Gauge({ ...config, registers: [this.registry] } as GaugeConfiguration<T>));
  }

  histogram<T extends string>(config: Omit<HistogramConfiguration<T>, 'registers'>): Histogram<T> {
    return this.claim('runtime', config.name, () => new Histogram({ ...config, registers: [this.registry] } as HistogramConfiguration<T>));
  }

  /** `ctx.metrics` of one plugin: the same registry, with a name taken twice reported as both plugins'. */
  forPlugin(plugin: string): PluginMetrics {
    return {
      registry: this.registry,
      counter: (config) => this.claim(plugin, config.name, () => new Counter({ ...config, registers: [this.registry] } as CounterConfiguration<any>)),
      gauge: (config) => this.claim(plugin, config.name, () => new Gauge({ ...config, registers: [this.registry] } as GaugeConfiguration<any>)),
      histogram: (config) => this.claim(plugin, config.name, () => new Histogram({ ...config, registers: [this.registry] } as HistogramConfiguration<any>)),
    };
  }

  private claim<M>(plugin: string, name: string, make: () => M): M {
    const owner = this.owners.get(name) ?? (this.registry.getSingleMetric(name) ? 'runtime' : undefined);
    if (owner !== undefined) {
      const by = owner === plugin ? `this plugin ("${plugin}") already registered it` : `plugin "${owner}" already registered it`;
      throw new PluginError(
        'plugin_metric_conflict',
        plugin,
        `Metric "${name}" cannot be registered by plugin "${plugin}": ${by}. Prefix metric names with the plugin's name (such as ${plugin.replace(/[^a-zA-Z0-9_]/g, '_')}_...).`,
        { details: { metric: name, registeredBy: owner, plugin } },
      );
    }
    const metric = make();
    this.owners.set(name, plugin);
    return metric;
  }

  observeRequest(listener: string, method: string, route: string, status: number, seconds: number): void {
    this.http.observe(listener, method, route, status, seconds);
  }

  /**
   * The series of one (listener, method, route, status), for a caller that keeps it (a route keeps
   * its last one) and records into it with `observeSeries`, without the lookup per request.
   */
  requestSeries(listener: string, method: string, route: string, status: number): Series {
    return this.http.series(listener, method, route, status);
  }

  observeSeries(series: Series, seconds: number): void {
    this.http.record(series, seconds);
  }
}
