import { createHash } from 'node:crypto';
import picomatch from 'picomatch';
import type { EgressPolicy, OutboundClient, OutboundResponse } from 'tessera-runtime/plugin';
import type { Checkpoint, CheckpointStore } from './crawl-checkpoint.js';
import type { CrawlConfig } from './crawl-config.js';
import { CrawlOutput } from './crawl-output.js';
import { CrawlSitemaps } from './crawl-sitemaps.js';
import { classify, CrawlReport, type CrawlSnapshot, type CrawlSummary } from './crawl-report.js';
import { decode, documentId, kindOf } from './crawled-page.js';
import { extractHtml, extractJson, extractText, type ExtractedPage } from './extract.js';
import { Fetcher } from './fetcher.js';
import { Frontier, type FrontierItem, type Taken } from './frontier.js';
import { normalizeUrl } from './normalize-url.js';
import type { PageState, PageStore } from './page-store.js';
import { RobotsCache, type RobotsRules } from './robots.js';
import type { IndexSink } from './sinks.js';

export interface CrawlDeps {
  config: CrawlConfig;
  tenant: string;
  scheduleId: string;
  /** The job the crawl runs as: its checkpoints are kept under this id. */
  jobId: string;
  outbound: OutboundClient;
  allow: Partial<EgressPolicy>;
  /** Sent as User-Agent when set; otherwise the runtime's `Tessera/<version>`. */
  userAgent?: string;
  /** The token robots.txt groups are matched on. */
  robotsAgent: string;
  maxCrawlDelayMs: number;
  maxReportedErrors: number;
  /** Pages visited between two checkpoints (and documents per batch sent to the index), at most. */
  batchDocs: number;
  /** Time between two checkpoints, at most, while pages are being visited. */
  checkpointIntervalMs: number;
  pages: PageStore;
  checkpoints: CheckpointStore;
  /** The checkpoint of an earlier attempt of this job: the crawl carries on from it. */
  resume?: Checkpoint;
  /** Absent: the crawl tracks pages without indexing them. */
  sink?: IndexSink;
  signal: AbortSignal;
  onProgress(snapshot: CrawlSnapshot): void;
}

type Item = FrontierItem;

/**
 * One run of a crawl: a breadth-first frontier over the seeds, polite per host (robots.txt, its
 * `Crawl-delay`, a per-host concurrency and delay), normalising and deduplicating URLs, re-crawling
 * conditionally against what the last run stored, and feeding the index in batches. At each batch
 * it takes a checkpoint (the index's acknowledgement, the batch's page states and the frontier),
 * from which a crawl cut short by a crash or a shutdown carries on.
 */
export class Crawl {
  private readonly deps: CrawlDeps;
  private readonly config: CrawlConfig;
  private readonly report: CrawlReport;
  private readonly frontier: Frontier;
  private readonly fetcher: Fetcher;
  private readonly robots: RobotsCache;
  private readonly include?: (path: string) => boolean;
  private readonly exclude?: (path: string) => boolean;
  private readonly output: CrawlOutput;
  private pagesRequested = 0;
  private revisitsQueued = false;
  private readonly resumed: boolean;
  private readonly sitemaps: CrawlSitemaps;
  private visitsSinceCheckpoint = 0;
  private lastCheckpointAt = Date.now();

  constructor(deps: CrawlDeps) {
    this.deps = deps;
    this.config = deps.config;
    const saved = deps.resume;
    this.resumed = saved !== undefined;
    this.report = new CrawlReport(deps.maxReportedErrors, saved?.meta.report);
    this.output = new CrawlOutput({ ...deps, report: this.report });
    this.frontier = new Frontier({ concurrency: this.config.concurrency, perHost: this.config.perHostConcurrency }, saved);
    if (saved) {
      this.pagesRequested = saved.meta.pagesRequested;
      this.revisitsQueued = saved.meta.revisitsQueued;
    }
    this.fetcher = new Fetcher({
      config: deps.config,
      outbound: deps.outbound,
      allow: deps.allow,
      signal: deps.signal,
      ...(deps.userAgent ? { userAgent: deps.userAgent } : {}),
    });
    this.robots = new RobotsCache((url) => this.fetcher.robots(url), deps.robotsAgent);
    this.sitemaps = new CrawlSitemaps(
      { config: this.config, frontier: this.frontier, fetcher: this.fetcher, enqueue: (item) => this.enqueue(item), rulesFor: (url) => this.rulesFor(url) },
      saved?.meta,
    );
    if (this.config.include.length > 0) this.include = picomatch(this.config.include, { dot: true });
    if (this.config.exclude.length > 0) this.exclude = picomatch(this.config.exclude, { dot: true });
  }

  snapshot(): CrawlSnapshot {
    return this.report.snapshot(this.pagesRequested, this.frontier.size);
  }

  async run(): Promise<CrawlSummary> {
    const { signal } = this.deps;
    if (!this.resumed) {
      for (const seed of this.config.seeds) {
        const url = normalizeUrl(seed, undefined, this.config.trailingSlash);
        if (url) this.enqueue({ url, depth: 0, origin: new URL(url).origin }, true);
      }
    }
    const active = new Set<Promise<void>>();
    let stoppedBy: string | undefined;
    while (!signal.aborted && !this.output.failure) {
      if (this.checkpointDue()) {
        // A checkpoint is a consistent cut: no visit half done. New requests wait for it.
        if (active.size > 0) await Promise.race(active);
        else await this.checkpoint();
        continue;
      }
      const exhausted = this.pagesRequested >= this.config.maxPages;
      if (exhausted && active.size === 0) {
        if (this.frontier.size > 0) stoppedBy = 'maxPages';
        break;
      }
      const next = exhausted ? undefined : this.frontier.take(Date.now());
      if (next) {
        active.add(this.start(next, active));
        continue;
      }
      if (this.frontier.size === 0 && active.size === 0) {
        if (this.queueRevisits()) continue;
        break;
      }
      await this.pause(active);
    }
    await Promise.allSettled(active);
    await this.checkpoint();
    if (this.output.failure) throw this.output.failure.error;
    if (signal.aborted) stoppedBy = String(signal.reason ?? 'aborted');
    const summary = this.snapshot();
    this.deps.onProgress(summary);
    return { ...summary, ...(stoppedBy ? { stoppedBy } : {}) };
  }

  /** Starts the visit of `taken`; a visit cut short by the crawl stopping is undone and queued again. */
  private start(taken: Taken, active: Set<Promise<void>>): Promise<void> {
    // A sitemap is read between pages, with the same pause, but is not a page of the budget.
    const page = taken.item.sitemap === undefined;
    if (page) this.pagesRequested++;
    const trace = { fetched: false };
    const task: Promise<void> = (page ? this.visit(taken.item, trace) : this.sitemaps.read(taken.item))
      .then(
        () => this.frontier.visited(taken),
        (err) => {
          if (this.deps.signal.aborted) {
            if (page) this.pagesRequested--;
            if (trace.fetched) this.report.counts.fetched--;
            this.frontier.putBack(taken);
            return;
          }
          if (page) this.fail(taken.item.url, classify(err));
          this.frontier.visited(taken);
        },
      )
      .finally(() => {
        this.frontier.release(taken, Date.now());
        this.visitsSinceCheckpoint++;
        active.delete(task);
        this.deps.onProgress(this.snapshot());
      });
    return task;
  }

  /** Waits for a visit to end, a host to be ready again, or the crawl to stop. */
  private async pause(active: Set<Promise<void>>): Promise<void> {
    const { signal } = this.deps;
    const wake = this.frontier.nextReadyAt(Date.now());
    let timer: NodeJS.Timeout | undefined;
    let wakeUp = (): void => undefined;
    try {
      await Promise.race([
        ...active,
        new Promise<void>((resolve) => {
          wakeUp = () => resolve();
          timer = setTimeout(wakeUp, wake === undefined ? 1000 : Math.max(1, wake - Date.now()));
          signal.addEventListener('abort', wakeUp, { once: true });
        }),
      ]);
    } finally {
      // Whichever ended the wait, the timer and the listener go (a visit ending first left both behind).
      clearTimeout(timer);
      signal.removeEventListener('abort', wakeUp);
    }
  }

  // ---- the frontier ------------------------------------------------------------------------------

  private allowedPath(url: string, isSeed: boolean): boolean {
    const path = new URL(url).pathname;
    if (this.exclude?.(path)) return false;
    if (!isSeed && this.include && !this.include(path)) return false;
    return true;
  }

  private enqueue(item: Item, isSeed = false): void {
    if (this.frontier.has(item.url)) return;
    if (!this.allowedPath(item.url, isSeed)) return;
    this.frontier.add(item);
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
      if (this.frontier.add({ url, depth: this.config.maxDepth, origin: new URL(url).origin, revisit: true })) added++;
    }
    return added > 0;
  }

  // ---- fetching ----------------------------------------------------------------------------------

  private async rulesFor(url: string): Promise<RobotsRules | undefined> {
    if (!this.config.respectRobots) return undefined;
    const origin = new URL(url).origin;
    const rules = await this.robots.get(origin);
    // robots.txt cut short by the crawl stopping is no verdict on the site.
    this.deps.signal.throwIfAborted();
    this.sitemaps.found(origin, rules);
    const delay = Math.max(this.config.politenessDelayMs, Math.min(rules.crawlDelayMs ?? 0, this.deps.maxCrawlDelayMs));
    this.frontier.setDelay(new URL(url).host, delay);
    return rules;
  }

  /** Whether a redirect hop may be requested: robots.txt of its origin is read and obeyed, as for a link. */
  private async hopBlocked(url: string): Promise<'robots' | 'robots_unavailable' | undefined> {
    if (!this.config.respectRobots) return undefined;
    // A hop the egress policy refuses on its face fails as such when requested (egress_denied).
    if (!this.deps.outbound.check(url, this.deps.allow).allowed) return undefined;
    const rules = await this.rulesFor(url);
    if (!rules || rules.allowed(url)) return undefined;
    return rules.status === 'unavailable' ? 'robots_unavailable' : 'robots';
  }

  // ---- one page ----------------------------------------------------------------------------------

  /** Visits one page; `trace.fetched` says whether it was counted as fetched (undone if the visit is cut short). */
  private async visit(item: Item, trace: { fetched: boolean }): Promise<void> {
    this.frontier.setDelay(new URL(item.url).host, this.config.politenessDelayMs);
    const rules = await this.rulesFor(item.url);
    if (rules && !rules.allowed(item.url)) {
      this.pagesRequested--;
      return this.skip(rules.status === 'unavailable' ? 'robots_unavailable' : 'robots');
    }
    const known = this.deps.pages.get(this.deps.tenant, this.deps.scheduleId, item.url);
    const conditional: Record<string, string> = {};
    if (known?.etag) conditional['if-none-match'] = known.etag;
    if (known?.lastModified) conditional['if-modified-since'] = known.lastModified;
    const answer = await this.fetcher.page(item.url, conditional, (hop) => this.hopBlocked(hop));
    this.report.counts.fetched++;
    trace.fetched = true;
    // A redirect to a URL robots.txt disallows is not followed: neither it nor where it leads is requested.
    if (answer.kind === 'blocked') return this.skip(answer.reason);
    const res = answer.res;

    const finalUrl = normalizeUrl(answer.url, undefined, this.config.trailingSlash) ?? item.url;
    if (finalUrl !== item.url) {
      // Redirected: the page is known by where it landed, which is checked like a link.
      if (this.config.sameOrigin && new URL(finalUrl).origin !== item.origin) return this.discard(res, 'offsite_redirect');
      // Reached both directly and through a redirect: only the first visit counts.
      if (this.frontier.isDocumented(finalUrl)) return this.discard(res, 'duplicate');
      this.frontier.see(finalUrl);
    }

    if (res.status === 304 && known) {
      await res.discard();
      this.report.counts.unchanged++;
      this.frontier.document(known.docUrl);
      this.follow(known.links, item);
      this.output.remember(item.url, { ...known, crawledAt: new Date().toISOString() });
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
    const page: ExtractedPage = kind === 'html' ? extractHtml(text, answer.url) : kind === 'json' ? extractJson(text) : extractText(text);
    const links = page.nofollow ? [] : this.follow(page.links, { ...item, url: finalUrl });

    let docUrl = finalUrl;
    const canonical = page.canonical ? normalizeUrl(page.canonical, undefined, this.config.trailingSlash) : undefined;
    if (canonical && canonical !== finalUrl && (!this.config.sameOrigin || new URL(canonical).origin === item.origin)) {
      docUrl = canonical;
      // The canonical page is this page: it need not be fetched again.
      this.frontier.see(canonical);
    }
    if (!this.frontier.document(docUrl)) return this.skip('duplicate');

    const state: PageState = {
      docUrl,
      links,
      crawledAt: new Date().toISOString(),
      hash,
      ...(res.headers.get('etag') ? { etag: res.headers.get('etag')! } : {}),
      ...(res.headers.get('last-modified') ? { lastModified: res.headers.get('last-modified')! } : {}),
    };
    if (page.noindex) {
      if (known?.docId) await this.output.write((sink) => sink.delete(known.docId!));
      const { hash: _indexedContent, ...unindexed } = state;
      this.output.remember(item.url, unindexed);
      return this.skip('noindex');
    }
    if (known && known.hash === hash && known.docUrl === docUrl && known.docId !== undefined) {
      this.report.counts.unchanged++;
      this.output.remember(item.url, { ...state, docId: known.docId });
      return;
    }
    if (!this.output.indexing) {
      this.output.remember(item.url, state);
      return;
    }
    const docId = documentId(docUrl);
    if (known?.docId && known.docId !== docId) await this.output.write((sink) => sink.delete(known.docId!));
    const written = await this.output.write((sink) =>
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
    this.output.remember(item.url, { ...state, docId });
  }

  private async removePage(url: string, known: PageState): Promise<void> {
    if (known.docId && !(await this.output.write((sink) => sink.delete(known.docId!)))) return;
    this.report.counts.removed++;
    this.output.remember(url, null);
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

  // ---- checkpoints -------------------------------------------------------------------------------

  private checkpointDue(): boolean {
    if (this.visitsSinceCheckpoint === 0) return false;
    return this.visitsSinceCheckpoint >= this.deps.batchDocs || Date.now() - this.lastCheckpointAt >= this.deps.checkpointIntervalMs;
  }

  /**
   * Writes a checkpoint (see CrawlOutput). Taken with no visit in flight, so what it stores is
   * exactly the work done: a crawl resumed from it repeats nothing it recorded, and redoes what
   * came after (fetches, and index writes that replace themselves by id).
   */
  private async checkpoint(): Promise<void> {
    this.visitsSinceCheckpoint = 0;
    this.lastCheckpointAt = Date.now();
    await this.output.checkpoint(
      () => this.frontier.takeDelta(),
      () => ({
        report: this.report.state(),
        pagesRequested: this.pagesRequested,
        revisitsQueued: this.revisitsQueued,
        ...this.sitemaps.state(),
      }),
    );
  }
}
