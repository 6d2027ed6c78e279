/** One host's share of the frontier and its politeness state. */
interface Host<T> {
  queue: T[];
  inFlight: number;
  /** No request to this host starts before this time (ms since epoch). */
  readyAt: number;
  /** Pause after each request to this host, in ms. */
  delayMs: number;
}

/**
 * The frontier, split per host: FIFO within a host (breadth-first), round-robin between hosts, at
 * most `perHost` requests in flight to a host and `concurrency` in all, and a pause after each
 * request to a host (the politeness delay, or robots.txt's `Crawl-delay`).
 */
export class HostQueue<T> {
  private readonly hosts = new Map<string, Host<T>>();
  private readonly concurrency: number;
  private readonly perHost: number;
  private inFlight = 0;
  private queued = 0;
  /** Round-robin position: the host served last. */
  private cursor = 0;

  constructor(options: { concurrency: number; perHost: number }) {
    this.concurrency = options.concurrency;
    this.perHost = options.perHost;
  }

  /** URLs waiting, all hosts together. */
  get size(): number {
    return this.queued;
  }

  private host(name: string): Host<T> {
    let host = this.hosts.get(name);
    if (!host) {
      host = { queue: [], inFlight: 0, readyAt: 0, delayMs: 0 };
      this.hosts.set(name, host);
    }
    return host;
  }

  /** Queues `item` last for its host, or first with `front` (a sitemap to read next, a request to retry). */
  push(host: string, item: T, front = false): void {
    const queue = this.host(host).queue;
    if (front) queue.unshift(item);
    else queue.push(item);
    this.queued++;
  }

  setDelay(host: string, delayMs: number): void {
    this.host(host).delayMs = delayMs;
  }

  /** The next item that may start now, taking its slot; undefined when every host is busy or resting. */
  take(now: number): { host: string; item: T } | undefined {
    if (this.inFlight >= this.concurrency || this.queued === 0) return undefined;
    const names = [...this.hosts.keys()];
    for (let i = 0; i < names.length; i++) {
      const index = (this.cursor + i) % names.length;
      const name = names[index]!;
      const host = this.hosts.get(name)!;
      if (host.queue.length === 0 || host.inFlight >= this.perHost || host.readyAt > now) continue;
      this.cursor = index + 1;
      host.inFlight++;
      this.inFlight++;
      this.queued--;
      return { host: name, item: host.queue.shift()! };
    }
    return undefined;
  }

  /** A request finished: its slot frees, and the host rests for its delay. */
  release(host: string, now: number): void {
    const h = this.host(host);
    h.inFlight--;
    this.inFlight--;
    h.readyAt = Math.max(h.readyAt, now + h.delayMs);
  }

  /** When the earliest resting host with work becomes ready (undefined if none is resting). */
  nextReadyAt(now: number): number | undefined {
    let earliest: number | undefined;
    for (const host of this.hosts.values()) {
      if (host.queue.length === 0 || host.readyAt <= now) continue;
      earliest = earliest === undefined ? host.readyAt : Math.min(earliest, host.readyAt);
    }
    return earliest;
  }
}
