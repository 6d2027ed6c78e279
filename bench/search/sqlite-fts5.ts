import Database from 'better-sqlite3';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { queryTerms, type BenchDoc, type SearchAdapter } from './adapter.js';
import { packageVersion } from './paths.js';

/**
 * SQLite FTS5 through better-sqlite3, on a temporary database file (so its size on disk is real).
 * One FTS5 table (id UNINDEXED, title, text) with the tokenizer given: `unicode61` is FTS5's
 * default, `porter unicode61` its Porter-stemming variant. The whole build is one transaction of
 * prepared inserts; FTS5's default automerge keeps the segments in check, and no 'optimize' is run
 * (it would add ~15% to the build for a slightly smaller, fully merged index). Queries: every word
 * term double-quoted (so no query text is read as FTS5 syntax) and joined with OR, ordered by
 * `rank` (= bm25() with weight 1 per column). Defaults otherwise: rollback journal, the default
 * page cache, and FTS5 stores the documents' content (counted in the size on disk).
 */
export class SqliteFts5Adapter implements SearchAdapter {
  readonly name: string;
  readonly description: string;
  private db: Database.Database | null = null;
  private dir: string | null = null;
  private file = '';
  private statement: Database.Statement<[string, number], { id: string }> | null = null;

  constructor(private readonly tokenizer: 'unicode61' | 'porter unicode61') {
    this.name = tokenizer === 'unicode61' ? 'sqlite-fts5' : 'sqlite-fts5-porter';
    this.description = `better-sqlite3 ${packageVersion('better-sqlite3')} (SQLite ${new Database(':memory:').prepare('select sqlite_version() as v').pluck().get() as string}) FTS5 tokenize='${tokenizer}', bm25() order, terms quoted and OR-ed, fields title+text`;
  }

  async build(docs: BenchDoc[]): Promise<void> {
    this.dir = mkdtempSync(join(tmpdir(), 'tessera-bench-fts5-'));
    this.file = join(this.dir, 'index.db');
    const db = new Database(this.file);
    db.exec(`CREATE VIRTUAL TABLE docs USING fts5(id UNINDEXED, title, text, tokenize = '${this.tokenizer}')`);
    const insert = db.prepare<[string, string, string]>('INSERT INTO docs (id, title, text) VALUES (?, ?, ?)');
    db.transaction((all: BenchDoc[]) => {
      for (const d of all) insert.run(d.id, d.title, d.text);
    })(docs);
    this.statement = db.prepare<[string, number], { id: string }>('SELECT id FROM docs WHERE docs MATCH ? ORDER BY rank LIMIT ?');
    this.db = db;
  }

  async search(query: string, k: number): Promise<string[]> {
    if (!this.statement) throw new Error(`${this.name}: search before build`);
    const match = toMatchExpression(query);
    if (match === '') return [];
    return this.statement.all(match, k).map((row) => row.id);
  }

  sizeBytes(): number {
    let bytes = 0;
    for (const suffix of ['', '-wal', '-journal']) if (existsSync(this.file + suffix)) bytes += statSync(this.file + suffix).size;
    return bytes;
  }

  async close(): Promise<void> {
    this.db?.close();
    this.db = null;
    this.statement = null;
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
    this.dir = null;
  }
}

/** `"term1" OR "term2" ...`: each word term quoted (quotes doubled), empty when there is none. */
export function toMatchExpression(query: string): string {
  return queryTerms(query)
    .map((t) => `"${t.replace(/"/g, '""')}"`)
    .join(' OR ');
}
