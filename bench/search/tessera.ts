import 'reflect-metadata';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createKernelRunner, type KernelRunner } from '../../kernels/src/index.js';
import { createLogger } from '../../runtime/logger.js';
import { Store } from '../../runtime/store.js';
import { parseCreateIndex } from '../../plugins/search/index/mappings.js';
import { SearchEngine } from '../../plugins/search/index/search-engine.js';
import type { SearchIndex } from '../../plugins/search/index/search-index.js';
import { search } from '../../plugins/search/search/search.js';
import type { BenchDoc, HttpSearchClient, SearchAdapter } from './adapter.js';
import { serveSearch } from './serve.js';

const BATCH = 25_000;

/**
 * Tessera's search engine as the bench sees it: in-process, the same SearchEngine the `search`
 * plugin serves (LMDB store, english analyzer on title and text, BM25 on the WASM kernels, one
 * worker thread), fed in batches of 25,000 (the bulk indexer's batch size is an option); over HTTP, a real
 * `tessera serve` process on the same data directory.
 */
export class TesseraAdapter implements SearchAdapter {
  readonly name = 'tessera';
  readonly description =
    'Tessera search plugin: english analyzer (Porter2, Lucene stop words) on title and text, BM25 k1 1.2 b 0.75 on WASM kernels, LMDB segments';
  private readonly dir = mkdtempSync(path.join(tmpdir(), 'tessera-bench-search-'));
  private store?: Store;
  private runner?: KernelRunner;
  private engine?: SearchEngine;
  private index?: SearchIndex;

  async build(docs: BenchDoc[]): Promise<void> {
    this.store = Store.open(path.join(this.dir, 'data'));
    this.runner = createKernelRunner({ threads: 1 });
    const runner = this.runner;
    this.engine = new SearchEngine({ store: this.store.namespace('search'), kernels: () => runner, log: createLogger({ level: 'silent' }) });
    this.engine.load();
    await this.engine.create(
      'default',
      parseCreateIndex({ name: 'bench', mappings: { title: { type: 'text', analyzer: 'english' }, text: { type: 'text', analyzer: 'english' } } }),
    );
    this.index = this.engine.get('default', 'bench');
    for (let i = 0; i < docs.length; i += BATCH) {
      const result = await this.index.upsert(docs.slice(i, i + BATCH));
      if (result.errors.length > 0) throw new Error(`tessera rejected documents: ${JSON.stringify(result.errors.slice(0, 3))}`);
    }
    // The plugin's default merge policy (at most 8 segments), which a deployment runs in the
    // background after writes, done before querying so every run queries the same layout.
    await this.index.mergeIfNeeded(8);
  }

  async search(query: string, k: number): Promise<string[]> {
    const result = await search(this.index!, this.runner!, { mode: 'keyword', q: query, size: k, from: 0, highlight: false, select: ['id'] });
    return result.hits.map((h) => h.id);
  }

  sizeBytes(): number {
    const dir = path.join(this.dir, 'data');
    return readdirSync(dir).reduce((n, f) => n + statSync(path.join(dir, f)).size, 0);
  }

  async overHttp(): Promise<HttpSearchClient> {
    // The server takes the data directory's lock: the in-process engine, measured already, lets go first.
    await this.release();
    const server = await serveSearch(this.dir, ['search']);
    const url = server.url;
    return {
      async search(query: string, k: number): Promise<string[]> {
        const res = await fetch(`${url}/v1/indexes/bench/search`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ q: query, size: k, highlight: false, select: ['id'] }),
        });
        const body = (await res.json()) as { hits: Array<{ id: string }> };
        return body.hits.map((h) => h.id);
      },
      async close(): Promise<void> {
        await server.stop();
      },
    };
  }

  private async release(): Promise<void> {
    this.engine?.close();
    await this.runner?.close();
    await this.store?.close();
    this.engine = undefined;
    this.runner = undefined;
    this.store = undefined;
  }

  async close(): Promise<void> {
    await this.release();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
