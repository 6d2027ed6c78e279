import type { CrawlConfig } from './crawl-config.js';
import type { Fetcher } from './fetcher.js';
import { sitemapKey, type Frontier, type FrontierItem } from './frontier.js';
import { normalizeUrl } from './normalize-url.js';
import type { RobotsRules } from './robots.js';
import { parseSitemap } from './sitemap.js';

/** Sitemaps read per run at most (those robots.txt names and those their indexes name). */
const MAX_SITEMAPS = 20;

/** What a checkpoint keeps of a crawl's sitemaps. */
export interface SitemapsState {
  /** Seed origins whose robots.txt sitemaps were queued. */
  sitemapOrigins: string[];
  /** Page URLs taken from sitemaps so far, and sitemaps queued (both bounded per run). */
  sitemapUrls: number;
  sitemapsQueued: number;
}

export interface CrawlSitemapsDeps {
  config: CrawlConfig;
  frontier: Frontier;
  fetcher: Fetcher;
  /** Queues a page found in a sitemap, as a link is (patterns, seen URLs). */
  enqueue(item: FrontierItem): void;
  /** Reads the origin's robots.txt and applies its Crawl-delay to the URL's host. */
  rulesFor(url: string): Promise<unknown>;
}

/**
 * A crawl's sitemaps: those a seed origin's robots.txt names are queued in the frontier once its
 * robots.txt has been read, ahead of that host's pages, and read like pages (one host slot, the
 * host's pause after each), not all at once at the start. Their pages join at depth 1.
 */
export class CrawlSitemaps {
  private readonly deps: CrawlSitemapsDeps;
  private readonly seedOrigins: Set<string>;
  private readonly origins = new Set<string>();
  private urls = 0;
  private queued = 0;

  constructor(deps: CrawlSitemapsDeps, from?: SitemapsState) {
    this.deps = deps;
    this.seedOrigins = new Set(deps.config.seeds.map((seed) => new URL(seed).origin));
    if (!from) return;
    for (const origin of from.sitemapOrigins) this.origins.add(origin);
    this.urls = from.sitemapUrls;
    this.queued = from.sitemapsQueued;
  }

  state(): SitemapsState {
    return { sitemapOrigins: [...this.origins], sitemapUrls: this.urls, sitemapsQueued: this.queued };
  }

  /** robots.txt of `origin` was read: queues the sitemaps it names, once per run, for seed origins. */
  found(origin: string, rules: RobotsRules): void {
    if (!this.deps.config.sitemaps || this.origins.has(origin) || !this.seedOrigins.has(origin)) return;
    this.origins.add(origin);
    this.queue(rules.sitemaps, origin, 0);
  }

  /** Queues sitemaps ahead of the host's pages, in the order given. */
  private queue(urls: readonly string[], origin: string, level: 0 | 1): void {
    const kept: string[] = [];
    for (const raw of urls) {
      const url = normalizeUrl(raw);
      if (url && kept.length < MAX_SITEMAPS - this.queued && !this.deps.frontier.has(sitemapKey(url))) kept.push(url);
    }
    // Each goes to the front: the last first, so they are read in order.
    for (const url of kept.reverse()) {
      if (this.deps.frontier.add({ url, depth: 1, origin, sitemap: level }, { key: sitemapKey(url), front: true })) this.queued++;
    }
  }

  /** Reads a sitemap: its pages join the frontier; the sitemaps an index names are queued (one level). */
  async read(item: FrontierItem): Promise<void> {
    const { config, frontier } = this.deps;
    frontier.setDelay(new URL(item.url).host, config.politenessDelayMs);
    // On the seed's origin, its Crawl-delay applies (its robots.txt is read by then).
    if (new URL(item.url).origin === item.origin) await this.deps.rulesFor(item.url);
    const xml = await this.deps.fetcher.sitemap(item.url);
    if (xml === undefined) return;
    const { pages, sitemaps } = parseSitemap(xml);
    for (const raw of pages) {
      if (this.urls >= config.maxPages * 4) break;
      const url = normalizeUrl(raw, undefined, config.trailingSlash);
      if (!url || (config.sameOrigin && new URL(url).origin !== item.origin)) continue;
      this.urls++;
      if (config.maxDepth >= 1) this.deps.enqueue({ url, depth: 1, origin: item.origin });
    }
    if (item.sitemap === 0) this.queue(sitemaps, item.origin, 1);
  }
}
