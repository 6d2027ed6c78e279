/**
 * The knowledge graph at 100,000 entities and 500,000 triples (generate.ts: seeded, power-law
 * degrees, WordNet names), in-process on the graph plugin's store (a real LMDB environment):
 *   npm run bench:graph                 (100k entities, 500k triples, 500 queries per maxHops)
 *   npm run bench:graph -- --quick      (20k entities, 100k triples, 100 queries)
 * Write throughput (batches of 10,000, each one committed transaction), load time of the stored
 * graph after a restart, and graph search p50/p99 for maxHops 1, 2 and 3 (limit 10) on queries
 * that are entity names (seeded picks) with every third one typo'd.
 * Prints one JSON line per measurement; the table lives in bench/README.md.
 */
import 'reflect-metadata';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { GraphStore } from '../../plugins/graph/graph-store.js';
import { searchGraph } from '../../plugins/graph/graph-search.js';
import { Store } from '../../runtime/store.js';
import { dataDir } from '../search/data.js';
import { prng } from '../support/prng.js';
import { generateGraph } from './generate.js';

const quick = process.argv.includes('--quick');
const entityCount = quick ? 20_000 : 100_000;
const tripleCount = quick ? 100_000 : 500_000;
const queryCount = quick ? 100 : 500;
const batch = 10_000;

const round = (n: number): number => Math.round(n * 1000) / 1000;
const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

async function main(): Promise<void> {
  const synsets = gunzipSync(readFileSync(path.join(dataDir(), 'corpus', 'wordnet_glosses.jsonl.gz')))
    .toString('utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { title: string; lexname: string });
  const { entities, triples } = generateGraph(synsets, entityCount, tripleCount);
  const degrees = new Map<string, number>();
  for (const t of triples) degrees.set(t.object, (degrees.get(t.object) ?? 0) + 1);
  const maxInDegree = Math.max(...degrees.values());

  const dir = mkdtempSync(path.join(tmpdir(), 'tessera-bench-graph-'));
  let store = Store.open(dir);
  let graphs = new GraphStore(store.namespace('graph'));
  let t0 = performance.now();
  for (let i = 0; i < entities.length; i += batch) await graphs.putEntities('default', 'bench', entities.slice(i, i + batch));
  const entityMs = performance.now() - t0;
  t0 = performance.now();
  for (let i = 0; i < triples.length; i += batch) await graphs.putTriples('default', 'bench', triples.slice(i, i + batch));
  const tripleMs = performance.now() - t0;
  console.log(
    JSON.stringify({
      measure: 'write',
      entities: entities.length,
      triples: triples.length,
      maxInDegree,
      entitiesPerSec: Math.round(entities.length / (entityMs / 1000)),
      triplesPerSec: Math.round(triples.length / (tripleMs / 1000)),
    }),
  );
  await store.close();

  store = Store.open(dir);
  graphs = new GraphStore(store.namespace('graph'));
  t0 = performance.now();
  const graph = graphs.graph('default', 'bench');
  console.log(
    JSON.stringify({ measure: 'load after restart', ms: Math.round(performance.now() - t0), heapMb: Math.round(process.memoryUsage().heapUsed / 1e6) }),
  );

  const rand = prng(11);
  const queries = Array.from({ length: queryCount }, (_, i) => {
    const name = entities[Math.floor(rand() * entities.length)]!.name;
    if (i % 3 !== 2 || name.length < 5) return name;
    const at = 1 + Math.floor(rand() * (name.length - 2));
    return name.slice(0, at) + name[at + 1] + name[at] + name.slice(at + 2);
  });
  for (const maxHops of [1, 2, 3]) {
    const times: number[] = [];
    let resolved = 0;
    let edges = 0;
    for (const query of queries) {
      const s = performance.now();
      const result = searchGraph(graph, { query, maxHops, limit: 10 }, { exists: () => true });
      times.push(performance.now() - s);
      if (result.entities.length > 0) resolved++;
      edges += result.edges.length;
    }
    times.sort((a, b) => a - b);
    console.log(
      JSON.stringify({
        measure: 'search',
        maxHops,
        queries: queries.length,
        p50Ms: round(percentile(times, 50)),
        p99Ms: round(percentile(times, 99)),
        resolved: resolved / queries.length,
        meanEdges: round(edges / queries.length),
      }),
    );
  }
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}

await main();
