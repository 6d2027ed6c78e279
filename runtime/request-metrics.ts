import type { Registry } from 'prom-client';

type Labels = { listener: string; method: string; route: string; status: string };

/** One (listener, method, route, status) series; a caller may keep it to skip the lookup next time. */
export interface Series {
  labels: Labels;
  method: string;
  status: number;
  count: number;
  sum: number;
  /** Non-cumulative counts per bucket; the last slot is +Inf. */
  buckets: Float64Array;
}

interface MetricValue {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}

/**
 * Request count and latency, observed on every request. prom-client hashes the label set on each
 * observation (several microseconds, measurable against a 60 us request), so the series live in
 * a map keyed once per (listener, method, route, status) and are exported at scrape time through
 * prom-client's collector interface, in the same text format its own counter and histogram write.
 */
export class RequestMetrics {
  private readonly seriesByKey = new Map<string, Series>();
  private readonly bounds: readonly number[];

  constructor(registry: Registry, bounds: readonly number[]) {
    this.bounds = bounds;
    const all = (): Series[] => [...this.seriesByKey.values()];
    registry.registerMetric({
      name: 'tessera_http_requests_total',
      help: 'HTTP requests answered, by listener, method, route pattern and status.',
      type: 'counter',
      aggregator: 'sum',
      get: () => ({
        name: 'tessera_http_requests_total',
        help: 'HTTP requests answered, by listener, method, route pattern and status.',
        type: 'counter',
        aggregator: 'sum',
        values: all().map((s) => ({ labels: s.labels, value: s.count })),
      }),
    } as never);
    registry.registerMetric({
      name: 'tessera_http_request_duration_seconds',
      help: 'Time from request start to response handed to the server, by route pattern.',
      type: 'histogram',
      aggregator: 'sum',
      get: () => ({
        name: 'tessera_http_request_duration_seconds',
        help: 'Time from request start to response handed to the server, by route pattern.',
        type: 'histogram',
        aggregator: 'sum',
        values: all().flatMap((s) => this.histogramValues(s)),
      }),
    } as never);
  }

  observe(listener: string, method: string, route: string, status: number, seconds: number): void {
    this.record(this.series(listener, method, route, status), seconds);
  }

  series(listener: string, method: string, route: string, status: number): Series {
    const key = `${listener} ${method} ${route} ${status}`;
    let s = this.seriesByKey.get(key);
    if (!s) {
      s = { labels: { listener, method, route, status: String(status) }, method, status, count: 0, sum: 0, buckets: new Float64Array(this.bounds.length + 1) };
      this.seriesByKey.set(key, s);
    }
    return s;
  }

  record(s: Series, seconds: number): void {
    s.count++;
    s.sum += seconds;
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && seconds > bounds[i]!) i++;
    s.buckets[i]!++;
  }

  private histogramValues(s: Series): MetricValue[] {
    const out: MetricValue[] = [];
    let cumulative = 0;
    this.bounds.forEach((le, i) => {
      cumulative += s.buckets[i]!;
      out.push({ labels: { le, ...s.labels }, value: cumulative, metricName: 'tessera_http_request_duration_seconds_bucket' });
    });
    out.push({ labels: { le: '+Inf', ...s.labels }, value: s.count, metricName: 'tessera_http_request_duration_seconds_bucket' });
    out.push({ labels: { ...s.labels }, value: s.sum, metricName: 'tessera_http_request_duration_seconds_sum' });
    out.push({ labels: { ...s.labels }, value: s.count, metricName: 'tessera_http_request_duration_seconds_count' });
    return out;
  }
}
