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
const redirectStatuses = new Set([301, 302, 303, 307, 308]);

/** A page redirected more than `maxRedirects` times (a redirect loop ends here). */
export class RedirectLimitError extends Error {
  constructor(url: string, maxRedirects: number) {
    super(`${url} redirected more than ${maxRedirects} times.`);
    this.name = 'RedirectLimitError';
  }
}

/** Why a redirect hop may not be requested (a robots.txt skip reason), or undefined when it may. */
export type HopCheck = (url: string) => Promise<'robots' | 'robots_unavailable' | undefined>;

/** Where a page request ended: an answer (not a redirect), or a redirect to a URL the crawl may not request. */
export type PageAnswer = { kind: 'answer'; res: OutboundResponse; url: string } | { kind: 'blocked'; url: string; reason: 'robots' | 'robots_unavailable' };

/** The crawl's requests, through the outbound client (egress policy, limits) with the crawl's settings. */
export class Fetcher {
  private readonly deps: FetcherDeps;

  constructor(deps: FetcherDeps) {
    this.deps = deps;
  }

  request(
    url: string,
    extra: { headers?: Record<string, string>; maxBytes?: number; redirect?: 'manual'; timeoutMs?: number } = {},
  ): Promise<OutboundResponse> {
    const { config } = this.deps;
    const headers: Record<string, string> = { accept, ...extra.headers };
    if (this.deps.userAgent) headers['user-agent'] = this.deps.userAgent;
    return this.deps.outbound.fetch(url, {
      headers,
      allow: this.deps.allow,
      signal: this.deps.signal,
      timeoutMs: extra.timeoutMs ?? config.requestTimeoutMs,
      maxRedirects: config.maxRedirects,
      maxBytes: extra.maxBytes ?? config.maxPageBytes,
      ...(extra.redirect ? { redirect: extra.redirect } : {}),
    });
  }

  /**
   * A page, following its redirects here rather than in the client, so that each hop is checked
   * (`check`: robots.txt) before it is requested; the egress policy checks each one too. One
   * deadline, `requestTimeoutMs`, covers the whole chain.
   */
  async page(url: string, headers: Record<string, string>, check: HopCheck): Promise<PageAnswer> {
    const { config } = this.deps;
    const deadline = Date.now() + config.requestTimeoutMs;
    let current = url;
    for (let hops = 0; ; hops++) {
      const res = await this.request(current, { headers, redirect: 'manual', timeoutMs: Math.max(1, deadline - Date.now()) });
      const location = redirectStatuses.has(res.status) ? res.headers.get('location') : null;
      if (!location) return { kind: 'answer', res, url: current };
      await res.discard();
      if (hops >= config.maxRedirects) throw new RedirectLimitError(url, config.maxRedirects);
      const next = new URL(location, current).href;
      const blocked = await check(next);
      if (blocked) return { kind: 'blocked', url: next, reason: blocked };
      current = next;
    }
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
