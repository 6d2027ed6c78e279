import { afterAll, describe, expect, it } from 'vitest';
import type { SearchAdapter } from '../../bench/search/adapter.js';
import { adapterNames, createAdapter } from '../../bench/search/adapters.js';
import { cranfieldAvailable, dataDir, generateQueries, loadCranfield } from '../../bench/search/data.js';
import { ndcgAt } from '../../bench/search/ndcg.js';
import { toMatchExpression } from '../../bench/search/sqlite-fts5.js';
import { percentile, runQueries } from '../../bench/search/stats.js';

/**
 * The search bench's harness, proven small: every peer adapter builds on 50 Cranfield abstracts and
 * finds documents by their titles. The bench itself (bench/search/run.ts) measures; this only shows
 * that what it times is real search.
 */

/** better-sqlite3 is a native addon built from source on install: when that failed, FTS5 is skipped. */
async function sqliteLoads(): Promise<string | null> {
  try {
    const { default: Database } = await import('better-sqlite3');
    new Database(':memory:').exec("CREATE VIRTUAL TABLE t USING fts5(a); INSERT INTO t VALUES ('x')");
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

const sqliteError = await sqliteLoads();
if (sqliteError) console.warn(`SQLite FTS5 adapters skipped: better-sqlite3 did not load (${sqliteError})`);
const haveData = cranfieldAvailable();
if (!haveData) console.warn(`search bench adapter tests skipped: Cranfield not found under ${dataDir()} (see ../shared/data/README.md)`);

describe('search bench helpers', () => {
  it('nDCG@10 uses graded gains, a log2 discount and the ideal from the judgments', () => {
    const judged = new Map([
      ['a', 3],
      ['b', 1],
      ['c', 0],
    ]);
    expect(ndcgAt(10, ['a', 'b'], judged)).toBeCloseTo(1, 10);
    expect(ndcgAt(10, ['b', 'a'], judged)).toBeCloseTo((1 + 3 / Math.log2(3)) / (3 + 1 / Math.log2(3)), 10);
    expect(ndcgAt(10, ['x', 'a', 'a'], judged)).toBeCloseTo(3 / Math.log2(3) / (3 + 1 / Math.log2(3)), 10);
    expect(ndcgAt(10, ['a'], new Map([['a', 0]]))).toBe(0);
  });

  it('quotes every FTS5 term so that no query text is read as FTS5 syntax', () => {
    expect(toMatchExpression('what is "NEAR(a b)" -x AND y*')).toBe('"what" OR "is" OR "NEAR" OR "a" OR "b" OR "x" OR "AND" OR "y"');
    expect(toMatchExpression('?! .')).toBe('');
  });

  it('generates the same 2-4 word queries for the same seed, each word from its source document', () => {
    const docs = [
      { id: '1', title: 'wing slipstream', text: 'lift increase due to slipstream at angles of attack' },
      { id: '2', title: 'boundary layer', text: 'heat transfer in a laminar boundary layer on a flat plate' },
    ];
    const a = generateQueries(docs, 50, 7);
    expect(generateQueries(docs, 50, 7)).toEqual(a);
    expect(generateQueries(docs, 50, 8)).not.toEqual(a);
    for (const q of a) {
      const words = q.text.split(' ');
      expect(words.length).toBeGreaterThanOrEqual(2);
      expect(words.length).toBeLessThanOrEqual(4);
      const source = docs.find((d) => d.id === q.sourceId)!;
      for (const w of words) expect(`${source.title} ${source.text}`).toContain(w);
    }
  });

  it('measures latency percentiles over every query at the concurrency asked', async () => {
    expect(percentile([5, 1, 4, 2, 3], 50)).toBe(3);
    expect(
      percentile(
        Array.from({ length: 100 }, (_, i) => i + 1),
        99,
      ),
    ).toBe(99);
    let inFlight = 0;
    let maxInFlight = 0;
    const figures = await runQueries(
      async () => {
        maxInFlight = Math.max(maxInFlight, ++inFlight);
        await new Promise((r) => setTimeout(r, 1));
        inFlight--;
        return ['x'];
      },
      Array.from({ length: 32 }, (_, i) => `q${i}`),
      10,
      8,
    );
    expect(maxInFlight).toBe(8);
    expect(figures.queries).toBe(32);
    expect(figures.nonEmpty).toBe(32);
  });
});

describe.skipIf(!haveData)('search bench peer adapters on 50 Cranfield documents', () => {
  const docs = haveData ? loadCranfield().docs.slice(0, 50) : [];
  const open: SearchAdapter[] = [];
  afterAll(async () => {
    for (const adapter of open) await adapter.close();
  });

  for (const name of adapterNames()) {
    const skip = name.startsWith('sqlite-fts5') && sqliteError !== null;
    it.skipIf(skip)(`${name}: builds, and finds documents by their titles among ids it was given`, async () => {
      const adapter = await createAdapter(name);
      open.push(adapter);
      expect(adapter.name).toBe(name);
      await adapter.build(docs);
      const known = new Set(docs.map((d) => d.id));
      let found = 0;
      for (const doc of docs.slice(0, 5)) {
        const ids = await adapter.search(doc.title, 10);
        expect(ids.length).toBeGreaterThan(0);
        expect(ids.length).toBeLessThanOrEqual(10);
        for (const id of ids) expect(known.has(id)).toBe(true);
        if (ids.includes(doc.id)) found++;
      }
      expect(found).toBeGreaterThanOrEqual(4);
      expect(await adapter.search('?!', 10)).toEqual([]);
      if (adapter.sizeBytes) expect(adapter.sizeBytes()).toBeGreaterThan(0);
    });
  }
});
