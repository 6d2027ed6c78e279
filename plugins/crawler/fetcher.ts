import type { EgressPolicy, OutboundClient, OutboundResponse } from 'tessera-runtime/plugin';
import type { CrawlConfig } from './crawl-config.js';

export interface FetcherDeps {
  config: CrawlConfig;
  outbound: OutboundClient;
  allow: Partial<EgressPolicy>;
  /** Sent as User-Agent when set; otherwise the runtime's `Tessera/<version>`. */
  userAgent?: string;
  signal: AbortSignal;
}

const accept = 'text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.8,*/*;q=0.5';

/** The crawl's requests, through the outbound client (egress policy, limits) with the crawl's settings. */
export class Fetcher {
  private readonly deps: FetcherDeps;

  constructor(deps: FetcherDeps) {
    this.deps = deps;
  }

  request(url: string, extra: { headers?: Record<string, string>; maxBytes?: number } = {}): Promise<OutboundResponse> {
    const { config } = this.deps;
    const headers: Record<string, string> = { accept, ...extra.headers };
    if (this.deps.userAgent) headers['user-agent'] = this.deps.userAgent;
    return this.deps.outbound.fetch(url, {
      headers,
      allow: this.deps.allow,
      signal: this.deps.signal,
      timeoutMs: config.requestTimeoutMs,
      maxRedirects: config.maxRedirects,
      maxBytes: extra.maxBytes ?? config.maxPageBytes,
    });
  }

  /** robots.txt: its status, and its body when 2xx. Throws when unreachable. */
  async robots(url: string): Promise<{ status: number; body?: string }> {
    const res = await this.request(url, { maxBytes: 512 * 1024 });
    if (res.status < 200 || res.status >= 300) {
      await res.discard();
      return { status: res.status };
    }
    return { status: res.status, body: await res.text() };
  }

  /** A sitemap's text; undefined when it cannot be read (it is then passed over). Throws only when the crawl stops. */
  async sitemap(url: string): Promise<string | undefined> {
    try {
      const res = await this.request(url, { maxBytes: 20 * 1024 * 1024 });
      if (res.status !== 200) {
        await res.discard();
        return undefined;
      }
      return await res.text();
    } catch (err) {
      if (this.deps.signal.aborted) throw err;
      return undefined;
    }
  }
}
