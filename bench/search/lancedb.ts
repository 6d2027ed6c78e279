import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchDoc, SearchAdapter } from './adapter.js';
import { packageVersion } from './paths.js';

type Lance = typeof import('@lancedb/lancedb');
type Table = Awaited<ReturnType<Awaited<ReturnType<Lance['connect']>>['createTable']>>;

/**
 * LanceDB's full-text search (its native BM25 index) with its defaults: `Index.fts()` on one
 * `content` column holding title and text (a LanceDB full-text query searches one column), the
 * query string passed as it is to `fullTextSearch`, top k by its BM25 score.
 */
export class LanceDbAdapter implements SearchAdapter {
  readonly name = 'lancedb';
  readonly description = `@lancedb/lancedb ${packageVersion('@lancedb/lancedb')}: Index.fts() defaults on title+text in one column, fullTextSearch`;
  private dir: string | null = null;
  private table: Table | null = null;
  private db: Awaited<ReturnType<Lance['connect']>> | null = null;

  async build(docs: BenchDoc[]): Promise<void> {
    const lancedb = await import('@lancedb/lancedb');
    this.dir = mkdtempSync(join(tmpdir(), 'tessera-bench-lancedb-'));
    this.db = await lancedb.connect(this.dir);
    const table = await this.db.createTable(
      'docs',
      docs.map((d) => ({ id: d.id, content: `${d.title}\n${d.text}` })),
    );
    await table.createIndex('content', { config: lancedb.Index.fts() });
    this.table = table;
  }

  async search(query: string, k: number): Promise<string[]> {
    if (!this.table) throw new Error('lancedb: search before build');
    const rows = (await this.table.query().fullTextSearch(query).select(['id', '_score']).limit(k).toArray()) as Array<{ id: string }>;
    return rows.map((r) => String(r.id));
  }

  async close(): Promise<void> {
    this.table?.close();
    this.db?.close();
    this.table = null;
    this.db = null;
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
    this.dir = null;
  }
}
