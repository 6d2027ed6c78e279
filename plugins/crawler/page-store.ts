import type { StoreNamespace } from 'tessera-runtime/plugin';

/** What the crawler remembers of a page between runs of a schedule, for conditional re-crawls. */
export interface PageState {
  /** The URL the document is indexed under (the page's canonical URL when it names one). */
  docUrl: string;
  /** The document id in the index (a hash of `docUrl`); absent when the page was never indexed. */
  docId?: string;
  etag?: string;
  lastModified?: string;
  /** SHA-256 of the body last indexed. */
  hash?: string;
  /** Links followed from the page, so an unchanged page (304) still leads the crawl on. */
  links: string[];
  crawledAt: string;
}

type Key = [string, string, string];

/** Page states per tenant and schedule, in the plugin's LMDB namespace. */
export class PageStore {
  private readonly db;
  private readonly store: StoreNamespace;

  constructor(store: StoreNamespace) {
    this.store = store;
    this.db = store.db('pages');
  }

  get(tenant: string, scheduleId: string, url: string): PageState | undefined {
    return this.db.get([tenant, scheduleId, url] satisfies Key) as PageState | undefined;
  }

  /** Writes (state) and removals (null), inside a transaction the caller holds (a crawl checkpoint's). */
  write(tenant: string, scheduleId: string, changes: ReadonlyMap<string, PageState | null>): void {
    for (const [url, state] of changes) {
      const key: Key = [tenant, scheduleId, url];
      if (state === null) void this.db.remove(key);
      else void this.db.put(key, state);
    }
  }

  /** Every page URL known for a schedule. */
  *urls(tenant: string, scheduleId: string): Iterable<string> {
    for (const key of this.db.getKeys({ start: [tenant, scheduleId], end: [tenant, `${scheduleId}\u0000`] })) {
      yield (key as Key)[2];
    }
  }

  count(tenant: string, scheduleId: string): number {
    return this.db.getCount({ start: [tenant, scheduleId], end: [tenant, `${scheduleId}\u0000`] });
  }

  /** Forgets a deleted schedule's pages. */
  async drop(tenant: string, scheduleId: string): Promise<void> {
    const keys = [...this.db.getKeys({ start: [tenant, scheduleId], end: [tenant, `${scheduleId}\u0000`] })];
    if (keys.length === 0) return;
    await this.store.transaction(() => {
      for (const key of keys) void this.db.remove(key);
    });
  }
}
