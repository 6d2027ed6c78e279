import MiniSearch from 'minisearch';
import type { BenchDoc, SearchAdapter } from './adapter.js';
import { packageVersion } from './paths.js';

/**
 * MiniSearch with its defaults: its tokenizer and lower-casing, no stemming, BM25+ scoring, OR
 * combination of terms, no prefix or fuzzy matching; title and text indexed with equal boosts.
 */
export class MiniSearchAdapter implements SearchAdapter {
  readonly name = 'minisearch';
  readonly description = `minisearch ${packageVersion('minisearch')}: default tokenizer, BM25+, OR, fields title+text`;
  private index: MiniSearch<BenchDoc> | null = null;

  async build(docs: BenchDoc[]): Promise<void> {
    const index = new MiniSearch<BenchDoc>({ fields: ['title', 'text'], storeFields: [] });
    index.addAll(docs);
    this.index = index;
  }

  async search(query: string, k: number): Promise<string[]> {
    if (!this.index) throw new Error('minisearch: search before build');
    const results = this.index.search(query);
    const ids: string[] = [];
    for (let i = 0; i < results.length && i < k; i++) ids.push(String(results[i]!.id));
    return ids;
  }

  async close(): Promise<void> {
    this.index = null;
  }
}
