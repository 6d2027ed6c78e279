import type { BenchDoc, SearchAdapter } from './adapter.js';
import { generateQueries, loadCranfield, loadWordnet, prng, WORDNET_DOCS } from './data.js';
import { ndcgAt } from './ndcg.js';
import { percentile, round, runQueries, type LatencyFigures } from './stats.js';

export const K = 10;
/** An adapter below this Cranfield nDCG@10 is broken, not slow: it is not timed on WordNet. */
export const MIN_CRANFIELD_NDCG = 0.05;

export interface TaskOptions {
  quick: boolean;
}

export interface CranfieldResult {
  bench: 'cranfield';
  adapter: string;
  description: string;
  docs: number;
  queries: number;
  ndcg10: number;
  medianQueryMs: number;
  p99QueryMs: number;
  buildMs: number;
  /** Queries that returned at least one id. */
  nonEmpty: number;
  checkPassed: boolean;
  check: string;
}

/**
 * Cranfield: build on all 1,400 abstracts, run the 225 queries once for nDCG@10 (which also warms
 * up), then once more timing each query alone: the median is the "median query ms".
 */
export async function cranfieldTask(adapter: SearchAdapter): Promise<CranfieldResult> {
  const data = loadCranfield();
  const t0 = performance.now();
  await adapter.build(data.docs);
  const buildMs = performance.now() - t0;
  let sum = 0;
  let nonEmpty = 0;
  for (const q of data.queries) {
    const ids = await adapter.search(q.text, K);
    if (ids.length > 0) nonEmpty++;
    sum += ndcgAt(K, ids, data.qrels.get(q.id) ?? new Map());
  }
  const ndcg10 = sum / data.queries.length;
  const times: number[] = [];
  for (const q of data.queries) {
    const s = performance.now();
    await adapter.search(q.text, K);
    times.push(performance.now() - s);
  }
  const checkPassed = ndcg10 > MIN_CRANFIELD_NDCG && nonEmpty >= 0.9 * data.queries.length;
  return {
    bench: 'cranfield',
    adapter: adapter.name,
    description: adapter.description,
    docs: data.docs.length,
    queries: data.queries.length,
    ndcg10: round(ndcg10, 4),
    medianQueryMs: round(percentile(times, 50)),
    p99QueryMs: round(percentile(times, 99)),
    buildMs: round(buildMs, 1),
    nonEmpty,
    checkPassed,
    check: `nDCG@10 ${ndcg10.toFixed(4)} must be > ${MIN_CRANFIELD_NDCG} and >= 90% of queries must return ids (${nonEmpty}/${data.queries.length})`,
  };
}

export interface WordnetResult {
  bench: 'wordnet';
  adapter: string;
  description: string;
  docs: number;
  queries: number;
  buildMs: number;
  buildDocsPerSec: number;
  /** Index bytes on disk; null for in-memory engines. */
  sizeBytes: number | null;
  /** RSS growth from before build to after it (both after a full GC), in MB. */
  rssDeltaMb: number;
  heapDeltaMb: number;
  rssAfterBuildMb: number;
  gcExposed: boolean;
  check: { titleGlossQueries: number; foundInTop10: number; passed: boolean };
  /** Timed queries whose source document (it holds every query word) is in the top 10. */
  sourceInTop10: number;
  /** Null when the index failed its check (nothing is timed then). */
  inProcess: { c1: LatencyFigures; c8: LatencyFigures } | null;
  /** Present only when the adapter provides the overHttp() hook; never estimated. */
  overHttp: { c1: LatencyFigures; c8: LatencyFigures } | null;
}

const mb = (bytes: number): number => round(bytes / 1048576, 1);

function fullGc(): boolean {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) return false;
  for (let i = 0; i < 3; i++) gc();
  return true;
}

/**
 * Share of the check queries (a document's own title and gloss) whose document must come back in
 * the top 10. A broken index or id mapping finds ~0; every peer finds 14-20 of 20 on the full
 * corpus (Orama's default prefix matching lets short words such as "a" or "art" match long
 * ones and is lowest).
 */
export const MIN_FOUND_BY_OWN_TEXT = 0.5;

/** The checked queries: 20 documents chosen by seed, each queried by its own title and gloss. */
function checkQueries(docs: readonly BenchDoc[]): Array<{ text: string; id: string }> {
  const rand = prng(3);
  return Array.from({ length: 20 }, () => {
    const d = docs[Math.floor(rand() * docs.length)]!;
    return { text: `${d.title.replace(/[,_]/g, ' ')} ${d.text}`, id: d.id };
  });
}

/**
 * WordNet: build on the corpus (all 117,791 docs, or the first 20,000 with --quick), measuring
 * docs/s, RSS growth and size on disk; check the index finds documents by their own title and gloss;
 * then time the generated queries (1,000, or 200 with --quick; 100 others warm up first) at
 * concurrency 1 and 8, in-process and, when the adapter has the hook, over HTTP.
 */
export async function wordnetTask(adapter: SearchAdapter, options: TaskOptions): Promise<WordnetResult> {
  const docs = await loadWordnet(options.quick ? 20_000 : WORDNET_DOCS);
  const queries = generateQueries(docs, options.quick ? 200 : 1000, 1);
  const warmup = generateQueries(docs, 100, 2).map((q) => q.text);
  const texts = queries.map((q) => q.text);
  const checks = checkQueries(docs);

  const gcExposed = fullGc();
  const before = process.memoryUsage();
  const t0 = performance.now();
  await adapter.build(docs);
  const buildMs = performance.now() - t0;
  fullGc();
  const after = process.memoryUsage();
  const sizeBytes = adapter.sizeBytes ? adapter.sizeBytes() : null;

  let foundInTop10 = 0;
  for (const c of checks) if ((await adapter.search(c.text, K)).includes(c.id)) foundInTop10++;
  const check = { titleGlossQueries: checks.length, foundInTop10, passed: foundInTop10 >= checks.length * MIN_FOUND_BY_OWN_TEXT };

  const measure = async (search: (q: string, k: number) => Promise<string[]>): Promise<{ c1: LatencyFigures; c8: LatencyFigures; sourceInTop10: number }> => {
    await runQueries(search, warmup, K, 1);
    let sourceInTop10 = 0;
    const c1 = await runQueries(search, texts, K, 1, (i, ids) => {
      if (ids.includes(queries[i]!.sourceId)) sourceInTop10++;
    });
    const c8 = await runQueries(search, texts, K, 8);
    return { c1, c8, sourceInTop10 };
  };

  const result: WordnetResult = {
    bench: 'wordnet',
    adapter: adapter.name,
    description: adapter.description,
    docs: docs.length,
    queries: queries.length,
    buildMs: round(buildMs, 1),
    buildDocsPerSec: Math.round(docs.length / (buildMs / 1000)),
    sizeBytes,
    rssDeltaMb: mb(after.rss - before.rss),
    heapDeltaMb: mb(after.heapUsed - before.heapUsed),
    rssAfterBuildMb: mb(after.rss),
    gcExposed,
    check,
    sourceInTop10: 0,
    inProcess: null,
    overHttp: null,
  };
  if (!check.passed) return result; // not timed: run.ts reports the failed check
  const inProcess = await measure((q, k) => adapter.search(q, k));
  result.inProcess = { c1: inProcess.c1, c8: inProcess.c8 };
  result.sourceInTop10 = inProcess.sourceInTop10;
  if (adapter.overHttp) {
    const client = await adapter.overHttp();
    try {
      const http = await measure((q, k) => client.search(q, k));
      result.overHttp = { c1: http.c1, c8: http.c8 };
    } finally {
      await client.close();
    }
  }
  return result;
}
