import bm25 from 'wink-bm25-text-search';
import nlp from 'wink-nlp-utils';
import type { BenchDoc, SearchAdapter } from './adapter.js';
import { packageVersion } from './paths.js';

/**
 * wink-bm25-text-search with its default BM25F parameters (k1 1.2, b 0.75, k 1) and the
 * preparation pipe its README documents with wink-nlp-utils: lower-case, tokenize0, remove stop
 * words, Porter stem, propagate negations. Fields title and text weigh 1 each; the same pipe
 * prepares the query. `consolidate()` is part of the build (the index is not searchable before).
 */
export class WinkBm25Adapter implements SearchAdapter {
  readonly name = 'wink-bm25';
  readonly description = `wink-bm25-text-search ${packageVersion('wink-bm25-text-search')} + wink-nlp-utils ${packageVersion('wink-nlp-utils')}: BM25F defaults, stop words + Porter, fields title+text`;
  private engine: ReturnType<typeof bm25> | null = null;

  async build(docs: BenchDoc[]): Promise<void> {
    const engine = bm25();
    engine.defineConfig({ fldWeights: { title: 1, text: 1 } });
    engine.definePrepTasks([nlp.string.lowerCase, nlp.string.tokenize0, nlp.tokens.removeWords, nlp.tokens.stem, nlp.tokens.propagateNegations]);
    for (const d of docs) engine.addDoc({ title: d.title, text: d.text }, d.id);
    engine.consolidate();
    this.engine = engine;
  }

  async search(query: string, k: number): Promise<string[]> {
    if (!this.engine) throw new Error('wink-bm25: search before build');
    return this.engine.search(query, k).map((hit) => String(hit[0]));
  }

  async close(): Promise<void> {
    this.engine?.reset();
    this.engine = null;
  }
}
