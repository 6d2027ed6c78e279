import { HostQueue } from './host-queue.js';

/** A URL waiting to be requested. */
export interface FrontierItem {
  url: string;
  depth: number;
  /** The origin of the seed this URL was reached from (`sameOrigin` compares against it). */
  origin: string;
  /** A page known from an earlier run, checked again because this run did not reach it. */
  revisit?: boolean;
  /** A sitemap to read, not a page: 0 when robots.txt names it, 1 when a sitemap index does. */
  sitemap?: 0 | 1;
}

/** An item taken from the frontier, with its place in the order it was queued. */
export interface Taken {
  seq: number;
  host: string;
  item: FrontierItem;
}

/** What the frontier gained and lost since the last checkpoint: the only part a checkpoint writes. */
export interface FrontierDelta {
  /** Items queued since then and still waiting. */
  queued: Array<[number, FrontierItem]>;
  /** Items that a checkpoint had stored as waiting and that have been visited since. */
  visited: number[];
  seen: string[];
  documented: string[];
}

/** The whole frontier as a checkpoint holds it. */
export interface FrontierState {
  queue: Array<[number, FrontierItem]>;
  seen: Iterable<string>;
  documented: Iterable<string>;
}

/** The key a sitemap takes in the seen set: a page URL never starts with it. */
export const sitemapKey = (url: string): string => `sitemap:${url}`;

/**
 * The crawl frontier: the per-host queue of what is left to request, every URL seen this run
 * (queued or visited), and the document URLs written this run. It records what changed since the
 * last checkpoint, so a checkpoint writes only that, never the whole frontier again.
 */
export class Frontier {
  private readonly hosts: HostQueue<Taken>;
  private readonly seenUrls = new Set<string>();
  private readonly documentedUrls = new Set<string>();
  /** Order of queueing: items pushed to the front take numbers below zero. */
  private last = 0;
  private first = 0;
  /** Queued since the last checkpoint (not stored yet), by number. */
  private unsaved = new Map<number, FrontierItem>();
  private visitedSaved: number[] = [];
  private newSeen: string[] = [];
  private newDocumented: string[] = [];

  constructor(options: { concurrency: number; perHost: number }, state?: FrontierState) {
    this.hosts = new HostQueue<Taken>(options);
    if (!state) return;
    for (const url of state.seen) this.seenUrls.add(url);
    for (const url of state.documented) this.documentedUrls.add(url);
    const queue = [...state.queue].sort((a, b) => a[0] - b[0]);
    for (const [seq, item] of queue) {
      this.hosts.push(hostOf(item.url), { seq, host: hostOf(item.url), item });
      this.last = Math.max(this.last, seq);
      this.first = Math.min(this.first, seq);
    }
  }

  /** URLs waiting, all hosts together. */
  get size(): number {
    return this.hosts.size;
  }

  has(key: string): boolean {
    return this.seenUrls.has(key);
  }

  /** Records `key` as seen without queueing it (a redirect's landing page, a canonical URL); false if it was. */
  see(key: string): boolean {
    if (this.seenUrls.has(key)) return false;
    this.seenUrls.add(key);
    this.newSeen.push(key);
    return true;
  }

  /** Queues an item not seen before (keyed by `key`, its URL unless given); false if it was seen. */
  add(item: FrontierItem, options: { key?: string; front?: boolean } = {}): boolean {
    if (!this.see(options.key ?? item.url)) return false;
    const seq = options.front ? --this.first : ++this.last;
    this.unsaved.set(seq, item);
    this.hosts.push(hostOf(item.url), { seq, host: hostOf(item.url), item }, options.front);
    return true;
  }

  isDocumented(docUrl: string): boolean {
    return this.documentedUrls.has(docUrl);
  }

  /** Records a document URL as written this run; false if it already was. */
  document(docUrl: string): boolean {
    if (this.documentedUrls.has(docUrl)) return false;
    this.documentedUrls.add(docUrl);
    this.newDocumented.push(docUrl);
    return true;
  }

  take(now: number): Taken | undefined {
    return this.hosts.take(now)?.item;
  }

  /** The request of `taken` is over: its host's slot frees and the host rests for its delay. */
  release(taken: Taken, now: number): void {
    this.hosts.release(taken.host, now);
  }

  /** The visit of `taken` is complete: it leaves the stored queue at the next checkpoint. */
  visited(taken: Taken): void {
    if (!this.unsaved.delete(taken.seq)) this.visitedSaved.push(taken.seq);
  }

  /** A visit cut short by the crawl stopping: the item waits again, first for its host. */
  putBack(taken: Taken): void {
    this.hosts.push(taken.host, taken, true);
  }

  setDelay(host: string, delayMs: number): void {
    this.hosts.setDelay(host, delayMs);
  }

  nextReadyAt(now: number): number | undefined {
    return this.hosts.nextReadyAt(now);
  }

  /** What changed since the last call, which starts a new delta. */
  takeDelta(): FrontierDelta {
    const delta: FrontierDelta = { queued: [...this.unsaved], visited: this.visitedSaved, seen: this.newSeen, documented: this.newDocumented };
    this.unsaved = new Map();
    this.visitedSaved = [];
    this.newSeen = [];
    this.newDocumented = [];
    return delta;
  }
}

function hostOf(url: string): string {
  return new URL(url).host;
}
