import type { OutboundClient, StoreNamespace } from 'tessera-runtime/plugin';
import type { SearchService } from '../search/index.js';
import { errors } from './errors.js';

export interface DocResult {
  title: string;
  url: string;
  snippet: string;
  /** `index:<name>` for the built-in backend, `searxng` for the web backend. */
  source: string;
  score: number;
}

export interface SearchToolSettings {
  enabled: boolean;
  /** The tenant's search index of documentation (filled by the crawler or the scanner). */
  index: string;
}

const defaults: SearchToolSettings = { enabled: true, index: 'docs' };
const stripTags = (s: string) => s.replace(/<\/?mark>/g, '');

/**
 * The agents' documentation search: the tenant's Tessera index of documentation first, and, when the
 * operator names a SearXNG instance (`searxngUrl`), its JSON API (`/search?format=json`) too. No
 * internet is assumed; the tool can be switched off per tenant (answers 409 `tool_disabled`).
 */
export class DocSearch {
  private readonly db;

  constructor(
    store: StoreNamespace,
    private readonly search: SearchService,
    private readonly outbound: OutboundClient,
    private readonly searxngUrl: string | undefined,
  ) {
    this.db = store.db('search-tool');
  }

  settings(tenant: string): SearchToolSettings & { backends: string[] } {
    const s = { ...defaults, ...(this.db.get(tenant) as Partial<SearchToolSettings> | undefined) };
    return { ...s, backends: ['index', ...(this.searxngUrl ? ['searxng'] : [])] };
  }

  async update(tenant: string, change: Partial<SearchToolSettings>): Promise<SearchToolSettings & { backends: string[] }> {
    const { backends: _b, ...current } = this.settings(tenant);
    await this.db.put(tenant, { ...current, ...change });
    return this.settings(tenant);
  }

  async query(tenant: string, query: string, limit: number, signal?: AbortSignal): Promise<{ results: DocResult[]; backends: Record<string, string> }> {
    const s = this.settings(tenant);
    if (!s.enabled) throw errors.tool_disabled({ tool: 'search' });
    const results: DocResult[] = [];
    const backends: Record<string, string> = {};
    if (this.search.get(tenant, s.index)) {
      const found = await this.search.search(tenant, s.index, { q: query, size: limit, highlight: true });
      for (const hit of found.hits) {
        const src = hit.source;
        const fragment = Object.values(hit.highlight ?? {}).flat()[0];
        const text = String(src.description ?? src.content ?? src.body ?? src.text ?? '');
        results.push({
          title: String(src.title ?? src.url ?? hit.id),
          url: String(src.url ?? ''),
          snippet: fragment ? stripTags(fragment) : text.slice(0, 240),
          source: `index:${s.index}`,
          score: hit.score,
        });
      }
      backends.index = 'ok';
    } else backends.index = `no index "${s.index}"`;
    if (this.searxngUrl) {
      try {
        const url = new URL('/search', this.searxngUrl);
        url.searchParams.set('q', query);
        url.searchParams.set('format', 'json');
        const res = await this.outbound.fetch(url, { trusted: true, timeoutMs: 10_000, maxBytes: 5_000_000, ...(signal ? { signal } : {}) });
        const body = (await res.json()) as { results?: Array<{ title?: string; url?: string; content?: string; score?: number }> };
        for (const r of (body.results ?? []).slice(0, limit)) {
          results.push({ title: r.title ?? r.url ?? '', url: r.url ?? '', snippet: r.content ?? '', source: 'searxng', score: r.score ?? 0 });
        }
        backends.searxng = res.status === 200 ? 'ok' : `HTTP ${res.status}`;
      } catch (err) {
        backends.searxng = (err as Error).message;
      }
    }
    return { results: results.slice(0, limit * (this.searxngUrl ? 2 : 1)), backends };
  }
}
