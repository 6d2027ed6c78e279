import { create, insertMultiple, search, type AnyOrama } from '@orama/orama';
import type { BenchDoc, SearchAdapter } from './adapter.js';
import { packageVersion } from './paths.js';

/**
 * Orama with its defaults: English tokenizer without stemming, BM25 (k1 1.2, b 0.75, d 0.5),
 * threshold 1 (documents matching any term), no typo tolerance. The document's `id` becomes Orama's
 * id; title and text are the schema's two string properties.
 */
export class OramaAdapter implements SearchAdapter {
  readonly name = 'orama';
  readonly description = `@orama/orama ${packageVersion('@orama/orama')}: default tokenizer (no stemming), BM25, fields title+text`;
  private db: AnyOrama | null = null;

  async build(docs: BenchDoc[]): Promise<void> {
    const db = create({ schema: { title: 'string', text: 'string' } as const });
    await insertMultiple(
      db,
      docs.map((d) => ({ id: d.id, title: d.title, text: d.text })),
    );
    this.db = db;
  }

  async search(query: string, k: number): Promise<string[]> {
    if (!this.db) throw new Error('orama: search before build');
    const result = await search(this.db, { term: query, properties: ['title', 'text'], limit: k });
    return result.hits.map((hit) => String(hit.id));
  }

  async close(): Promise<void> {
    this.db = null;
  }
}
