import { createHash } from 'node:crypto';
import picomatch from 'picomatch';
import type { EgressPolicy, OutboundClient, OutboundResponse } from 'tessera-runtime/plugin';
import type { CrawlConfig } from './crawl-config.js';
import { classify, CrawlReport, type CrawlSnapshot, type CrawlSummary } from './crawl-report.js';
import { decode, documentId, kindOf } from './crawled-page.js';
import { extractHtml, extractJson, extractText, type ExtractedPage } from './extract.js';
import { HostQueue } from './host-queue.js';
import { normalizeUrl } from './normalize-url.js';
import type { PageState, PageStore } from './page-store.js';
import { RobotsCache, type RobotsRules } from './robots.js';
import type { IndexSink } from './sinks.js';
import { readSitemaps } from './sitemap.js';

export interface CrawlDeps {
  config: CrawlConfig;
  tenant: string;
  scheduleId: string;
  outbound: OutboundClient;
  allow: Partial<EgressPolicy>;
  /** Sent as User-Agent when set; otherwise the runtime's `Tessera/<version>`. */
  userAgent?: string;
  /** The token robots.txt groups are matched on. */
  robotsAgent: string;
  maxCrawlDelayMs: number;
  maxReportedErrors: number;
  batchDocs: number;
  pages: PageStore;
  /** Absent: the crawl tracks pages without indexing them. */
  sink?: IndexSink;
  signal: AbortSignal;
  onProgress(snapshot: CrawlSnapshot): void;
}

interface Item {
  url: string;
  depth: number;
  /** The origin of the seed this URL was reached from (`sameOrigin` compares against it). */
  origin: string;
  /** A page known from an earlier run, checked again because this run did not reach it. */
  revisit?: boolean;
}

/**
 * One run of a crawl: a breadth-first frontier over the seeds, polite per host (robots.txt, its
 * `Crawl-delay`, a per-host concurrency and delay), normalising and deduplicating URLs, re-crawling
 * conditionally against what the last run stored, and feeding the index in batches.
 */
export class Crawl {
  private readonly deps: CrawlDeps;
  private readonly config: CrawlConfig;
  private readonly report: CrawlReport;
  /** Every normalised URL queued or visited this run. */
  private readonly seen = new Set<string>();
  /** Document URLs written (or found unchanged) this run: a second page with the same canonical URL is a duplicate. */
  private readonly documented = new Set<string>();
  private readonly hosts: HostQueue<Item>;
  private readonly robots: RobotsCache;
  private readonly include?: (path: string) => boolean;
  private readonly exclude?: (path: string) => boolean;
  /** Page states to store once the index has acknowledged the batch they belong to (null: forget). */
  private pending = new Map<string, PageState | null>();
  private pendingDocs = 0;
  private pagesRequested = 0;
  private revisitsQueued = false;
  private flushing: Promise<void> = Promise.resolve();
  /** The index failed: the crawl stops and the job fails with this error. */
  private indexFailure: { error: unknown } | undefined;

  constructor(deps: CrawlDeps) {
    this.deps = deps;
    this.config = deps.config;
    this.report = new CrawlReport(deps.maxReportedErrors);
    this.hosts = new HostQueue<Item>({ concurrency: this.config.concurrency, perHost: this.config.perHostConcurrency });
    this.robots = new RobotsCache((url) => this.fetchRobots(url), deps.robotsAgent);
    if (this.config.include.length > 0) this.include = picomatch(this.config.include, { dot: true });
    if (this.config.exclude.length > 0) this.exclude = picomatch(this.config.exclude, { dot: true });
  }

  snapshot(): CrawlSnapshot {
    return this.report.snapshot(this.pagesRequested, this.hosts.size);
  }

  async run(): Promise<CrawlSummary> {
    const { signal } = this.deps;
    for (const seed of this.config.seeds) {
      const url = normalizeUrl(seed, undefined, this.config.trailingSlash);
      if (url) this.enqueue({ url, depth: 0, origin: new URL(url).origin }, true);
    }
    if (this.config.respectRobots && this.config.sitemaps) await this.addSitemapUrls();
    const active = new Set<Promise<void>>();
    let stoppedBy: string | undefined;
    while (!signal.aborted && !this.indexFailure) {
      const exhausted = this.pagesRequested >= this.config.maxPages;
      if (exhausted && active.size === 0) {
        if (this.hosts.size > 0) stoppedBy = 'maxPages';
        break;
      }
      const next = exhausted ? undefined : this.hosts.take(Date.now());
      if (next) {
        this.pagesRequested++;
        const task: Promise<void> = this.visit(next.item)
          .catch((err) => this.fail(next.item.url, classify(err)))
          .finally(() => {
            this.hosts.release(next.host, Date.now());
            active.delete(task);
            this.deps.onProgress(this.snapshot());
          });
        active.add(task);
        continue;
      }
      if (this.hosts.size === 0 && active.size === 0) {
        if (this.queueRevisits()) continue;
        break;
      }
      const wake = this.hosts.nextReadyAt(Date.now());
      await Promise.race([
        ...active,
        new Promise<void>((resolve) => {
          const onAbort = () => {
            clearTimeout(timer);
            resolve();
          };
          const timer = setTimeout(
            () => {
              signal.removeEventListener('abort', onAbort);
              resolve();
            },
            wake === undefined ? 1000 : Math.max(1, wake - Date.now()),
          );
          signal.addEventListener('abort', onAbort, { once: true });
        }),
      ]);
    }
    await Promise.allSettled(active);
    await this.flush();
    if (this.indexFailure) throw this.indexFailure.error;
    if (signal.aborted) stoppedBy = String(signal.reason ?? 'aborted');
    const summary = this.snapshot();
    this.deps.onProgress(summary);
    return { ...summary, ...(stoppedBy ? { stoppedBy } : {}) };
  }

  // ---- the frontier ------------------------------------------------------------------------------

  private allowedPath(url: string, isSeed: boolean): boolean {
    const path = new URL(url).pathname;
    if (this.exclude?.(path)) return false;
    if (!isSeed && this.include && !this.include(path)) return false;
    return true;
  }

  private enqueue(item: Item, isSeed = false): void {
    if (this.seen.has(item.url)) return;
    if (!this.allowedPath(item.url, isSeed)) return;
    this.seen.add(item.url);
    this.hosts.push(new URL(item.url).host, item);
  }

  /** Links of a page into the frontier, filtered by depth, origin and patterns. */
  private follow(links: readonly string[], from: Item): string[] {
    const kept: string[] = [];
    for (const link of links) {
      const url = normalizeUrl(link, undefined, this.config.trailingSlash);
      if (!url) continue;
      if (this.config.sameOrigin && new URL(url).origin !== from.origin) continue;
      if (!this.allowedPath(url, false)) continue;
      kept.push(url);
    }
    const unique = [...new Set(kept)];
    if (from.depth < this.config.maxDepth && !from.revisit) {
      for (const url of unique) this.enqueue({ url, depth: from.depth + 1, origin: from.origin });
    }
    return unique.slice(0, 1000);
  }

  /** Pages indexed by an earlier run that this run did not reach: checked once, so removed pages leave the index. */
  private queueRevisits(): boolean {
    if (this.revisitsQueued) return false;
    this.revisitsQueued = true;
    let added = 0;
    for (const url of this.deps.pages.urls(this.deps.tenant, this.deps.scheduleId)) {
      if (this.seen.has(url)) continue;
      this.seen.add(url);
      this.hosts.push(new URL(url).host, { url, depth: this.config.maxDepth, origin: new URL(url).origin, revisit: true });
      added++;
    }
    return added > 0;
  }

  private async addSitemapUrls(): Promise<void> {
    const origins = [...new Set(this.config.seeds.map((s) => new URL(s).origin))];
    for (const origin of origins) {
      if (this.deps.signal.aborted) return;
      const rules = await this.robots.get(origin);
      if (rules.sitemaps.length === 0) continue;
      const urls = await readSitemaps(rules.sitemaps, (url) => this.fetchSmall(url), { maxUrls: this.config.maxPages * 4 });
      for (const raw of urls) {
        const url = normalizeUrl(raw, undefined, this.config.trailingSlash);
        if (!url || (this.config.sameOrigin && new URL(url).origin !== origin)) continue;
        if (this.config.maxDepth >= 1) this.enqueue({ url, depth: 1, origin });
      }
    }
  }

  // ---- fetching ----------------------------------------------------------------------------------

  private request(url: string, extra: { headers?: Record<string, string>; maxBytes?: number } = {}): Promise<OutboundResponse> {
    const headers: Record<string, string> = { accept: 'text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.8,*/*;q=0.5', ...extra.headers };
    if (this.deps.userAgent) headers['user-agent'] = this.deps.userAgent;
    return this.deps.outbound.fetch(url, {
      headers,
      allow: this.deps.allow,
      signal: this.deps.signal,
      timeoutMs: this.config.requestTimeoutMs,
      maxRedirects: this.config.maxRedirects,
      maxBytes: extra.maxBytes ?? this.config.maxPageBytes,
    });
  }

  private async fetchRobots(url: string): Promise<{ status: number; body?: string }> {
    const res = await this.request(url, { maxBytes: 512 * 1024 });
    if (res.status < 200 || res.status >= 300) {
      await res.discard();
      return { status: res.status };
    }
    return { status: res.status, body: await res.text() };
  }

  private async fetchSmall(url: string): Promise<string | undefined> {
    try {
      const res = await this.request(url, { maxBytes: 20 * 1024 * 1024 });
      if (res.status !== 200) {
        await res.discard();
        return undefined;
      }
      return await res.text();
    } catch {
      return undefined;
    }
  }

  private async rulesFor(url: string): Promise<RobotsRules | undefined> {
    if (!this.config.respectRobots) return undefined;
    const origin = new URL(url).origin;
    const rules = await this.robots.get(origin);
    const delay = Math.max(this.config.politenessDelayMs, Math.min(rules.crawlDelayMs ?? 0, this.deps.maxCrawlDelayMs));
    this.hosts.setDelay(new URL(url).host, delay);
    return rules;
  }

  // ---- one page ----------------------------------------------------------------------------------

  private async visit(item: Item): Promise<void> {
    this.hosts.setDelay(new URL(item.url).host, this.config.politenessDelayMs);
    const rules = await this.rulesFor(item.url);
    if (rules && !rules.allowed(item.url)) {
      this.pagesRequested--;
      return this.skip(rules.status === 'unavailable' ? 'robots_unavailable' : 'robots');
    }
    const known = this.deps.pages.get(this.deps.tenant, this.deps.scheduleId, item.url);
    const conditional: Record<string, string> = {};
    if (known?.etag) conditional['if-none-match'] = known.etag;
    if (known?.lastModified) conditional['if-modified-since'] = known.lastModified;
    const res = await this.request(item.url, { headers: conditional });
    this.report.counts.fetched++;

    const finalUrl = normalizeUrl(res.url, undefined, this.config.trailingSlash) ?? item.url;
    if (finalUrl !== item.url) {
      // Redirected: the page is known by where it landed, which is checked like a link.
      if (this.config.sameOrigin && new URL(finalUrl).origin !== item.origin) return this.discard(res, 'offsite_redirect');
      // Reached both directly and through a redirect: only the first visit counts.
      if (this.documented.has(finalUrl)) return this.discard(res, 'duplicate');
      this.seen.add(finalUrl);
      const finalRules = await this.rulesFor(finalUrl);
      if (finalRules && !finalRules.allowed(finalUrl)) return this.discard(res, 'robots');
    }

    if (res.status === 304 && known) {
      await res.discard();
      this.report.counts.unchanged++;
      this.documented.add(known.docUrl);
      this.follow(known.links, item);
      this.remember(item.url, { ...known, crawledAt: new Date().toISOString() });
      return;
    }
    if (res.status === 404 || res.status === 410) {
      await res.discard();
      if (known) return this.removePage(item.url, known);
      return this.fail(item.url, { code: `http_${res.status}`, skip: false, message: `${item.url} answered ${res.status}.` }, res.status);
    }
    if (res.status < 200 || res.status >= 300) {
      await res.discard();
      return this.fail(item.url, { code: `http_${res.status}`, skip: false, message: `${item.url} answered ${res.status}.` }, res.status);
    }

    const contentType = res.headers.get('content-type');
    const kind = kindOf(contentType);
    if (kind === undefined || !this.config.contentTypes.includes(kind)) return this.discard(res, 'content_type');
    const bytes = await res.bytes();
    const hash = createHash('sha256').update(bytes).digest('hex');
    const text = decode(bytes, contentType);
    const page: ExtractedPage = kind === 'html' ? extractHtml(text, res.url) : kind === 'json' ? extractJson(text) : extractText(text);
    const links = page.nofollow ? [] : this.follow(page.links, { ...item, url: finalUrl });

    let docUrl = finalUrl;
    const canonical = page.canonical ? normalizeUrl(page.canonical, undefined, this.config.trailingSlash) : undefined;
    if (canonical && canonical !== finalUrl && (!this.config.sameOrigin || new URL(canonical).origin === item.origin)) {
      docUrl = canonical;
      // The canonical page is this page: it need not be fetched again.
      this.seen.add(canonical);
    }
    if (this.documented.has(docUrl)) return this.skip('duplicate');
    this.documented.add(docUrl);

    const state: PageState = {
      docUrl,
      links,
      crawledAt: new Date().toISOString(),
      hash,
      ...(res.headers.get('etag') ? { etag: res.headers.get('etag')! } : {}),
      ...(res.headers.get('last-modified') ? { lastModified: res.headers.get('last-modified')! } : {}),
    };
    if (page.noindex) {
      if (known?.docId) await this.toIndex((sink) => sink.delete(known.docId!));
      const { hash: _indexedContent, ...unindexed } = state;
      this.remember(item.url, unindexed);
      return this.skip('noindex');
    }
    if (known && known.hash === hash && known.docUrl === docUrl && known.docId !== undefined) {
      this.report.counts.unchanged++;
      this.remember(item.url, { ...state, docId: known.docId });
      return;
    }
    if (!this.deps.sink) {
      this.remember(item.url, state);
      return;
    }
    const docId = documentId(docUrl);
    if (known?.docId && known.docId !== docId) await this.toIndex((sink) => sink.delete(known.docId!));
    const written = await this.toIndex((sink) =>
      sink.upsert({
        id: docId,
        url: docUrl,
        title: page.title,
        description: page.description,
        content: page.content,
        headings: page.headings,
        lang: page.lang,
        crawledAt: state.crawledAt,
      }),
    );
    if (!written) return;
    this.remember(item.url, { ...state, docId });
    if (++this.pendingDocs >= this.deps.batchDocs) await this.flush();
  }

  private async removePage(url: string, known: PageState): Promise<void> {
    if (known.docId && !(await this.toIndex((sink) => sink.delete(known.docId!)))) return;
    this.report.counts.removed++;
    this.remember(url, null);
  }

  /** A write to the index; a failure stops the crawl (it is the job's failure, not the page's). */
  private async toIndex(write: (sink: IndexSink) => Promise<void>): Promise<boolean> {
    if (!this.deps.sink) return true;
    if (this.indexFailure) return false;
    try {
      await write(this.deps.sink);
      return true;
    } catch (err) {
      this.indexFailure ??= { error: err };
      return false;
    }
  }

  private remember(url: string, state: PageState | null): void {
    this.pending.set(url, state);
  }

  private async discard(res: OutboundResponse, reason: string): Promise<void> {
    await res.discard();
    this.skip(reason);
  }

  private skip(reason: string): void {
    this.report.skip(reason);
  }

  private fail(url: string, what: { code: string; skip: boolean; message: string }, status?: number): void {
    this.report.fail(url, what, status);
  }

  /**
   * Sends the buffered documents and, once the index has acknowledged them, stores the page states
   * of that batch: a page is remembered as indexed only when it is. Flushes run one at a time.
   */
  private flush(): Promise<void> {
    const run = this.flushing.then(async () => {
      const pending = this.pending;
      this.pending = new Map();
      this.pendingDocs = 0;
      if (this.deps.sink) {
        if (this.indexFailure) return;
        let result;
        try {
          result = await this.deps.sink.flush();
        } catch (err) {
          this.indexFailure ??= { error: err };
          return;
        }
        this.report.counts.indexed += result.indexed;
        const refused = new Set<string>();
        for (const e of result.errors) {
          if (e.id) refused.add(e.id);
          this.fail(e.id ?? '(index)', { code: e.code, skip: false, message: e.message });
        }
        // A refused document is not remembered, so the next run tries it again.
        for (const [url, state] of pending) if (state?.docId && refused.has(state.docId)) pending.delete(url);
      }
      await this.deps.pages.apply(this.deps.tenant, this.deps.scheduleId, pending);
    });
    this.flushing = run.catch(() => undefined);
    return run;
  }
}
