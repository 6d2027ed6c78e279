import { Document } from 'flexsearch';
import type { BenchDoc, SearchAdapter } from './adapter.js';
import { packageVersion } from './paths.js';

/**
 * FlexSearch Document index with its default options (tokenize "strict", default encoder, its own
 * position-based resolution scoring: not BM25). Two things follow its README: numeric ids (the
 * "Best Practices" section; mapped back to ours here) and `suggest: true` at search time, without
 * which a query matches only documents holding every term and whole-sentence queries find nothing.
 * Field results are merged (`merge: true`) into one list.
 */
export class FlexSearchAdapter implements SearchAdapter {
  readonly name = 'flexsearch';
  readonly description = `flexsearch ${packageVersion('flexsearch')}: Document index, defaults, suggest: true, merge: true, fields title+text`;
  private index: Document<{ id: number; title: string; text: string }> | null = null;
  private ids: string[] = [];

  async build(docs: BenchDoc[]): Promise<void> {
    const index = new Document<{ id: number; title: string; text: string }>({ document: { id: 'id', index: ['title', 'text'] } });
    this.ids = docs.map((d) => d.id);
    for (let i = 0; i < docs.length; i++) index.add({ id: i, title: docs[i]!.title, text: docs[i]!.text });
    this.index = index;
  }

  async search(query: string, k: number): Promise<string[]> {
    if (!this.index) throw new Error('flexsearch: search before build');
    const results = this.index.search(query, { limit: k, suggest: true, merge: true });
    const ids: string[] = [];
    for (let i = 0; i < results.length && i < k; i++) ids.push(this.ids[Number(results[i]!.id)]!);
    return ids;
  }

  async close(): Promise<void> {
    this.index = null;
    this.ids = [];
  }
}
