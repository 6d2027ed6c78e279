/**
 * What graph-boosted search (`expand: "graph"`) does to nDCG@10 on the judged collections, keyword
 * mode, in-process through runSearch (the function behind `POST /v1/indexes/{name}/search`), the
 * graph walked by the graph plugin's own searchGraph and turned into terms by its expansionOf:
 *   npm run bench:graph-expand
 * Two graphs per collection, each from a documented generator (below): `cooc`, the collection's
 * own word co-occurrence (an association thesaurus), and `wordnet`, WordNet's synonyms (one
 * entity per synset, its lemmas as name and aliases). Neither links documents (no `docIds`), so
 * only the expanded terms act here; the related-document boost is not measured.
 * Prints one JSON line per collection and variant; the table lives in bench/README.md.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { expansionOf } from '../../plugins/graph/expand.js';
import { searchGraph } from '../../plugins/graph/graph-search.js';
import { IndexGraph } from '../../plugins/graph/index-graph.js';
import { parseCreateIndex } from '../../plugins/search/index/mappings.js';
import { QueryExpanders } from '../../plugins/search/search/query-expansion.js';
import { runSearch, searchQuerySchema } from '../../plugins/search/search/search.js';
import { openBenchEngine } from '../support/engine.js';
import { dataDir, loadCollection, type CollectionName } from '../search/data.js';
import { ndcgAt } from '../search/ndcg.js';

const K = 10;
const collections: CollectionName[] = ['cranfield', 'cisi', 'nfcorpus_pp'];
const wordsOf = (text: string): string[] => text.toLowerCase().match(/[a-z]{3,}/g) ?? [];

/**
 * The co-occurrence graph: every word (3+ letters) in at least 3 documents and at most 5% of
 * them is an entity; each is linked to its 3 best partners by Dice coefficient over documents
 * (2 co / (df a + df b), at least 3 shared documents and a Dice of 0.2), weight the Dice.
 */
export function cooccurrenceGraph(docs: ReadonlyArray<{ title: string; text: string }>): IndexGraph {
  const sets = docs.map((d) => [...new Set(wordsOf(`${d.title} ${d.text}`))]);
  const df = new Map<string, number>();
  for (const set of sets) for (const w of set) df.set(w, (df.get(w) ?? 0) + 1);
  const vocabulary = [...df].filter(([, n]) => n >= 3 && n <= 0.05 * docs.length).map(([w]) => w);
  const idOf = new Map(vocabulary.map((w, i) => [w, i]));
  const v = vocabulary.length;
  const co = new Map<number, number>();
  for (const set of sets) {
    const ids = set.flatMap((w) => idOf.get(w) ?? []).sort((a, b) => a - b);
    for (let i = 0; i < ids.length; i++) for (let j = i + 1; j < ids.length; j++) co.set(ids[i]! * v + ids[j]!, (co.get(ids[i]! * v + ids[j]!) ?? 0) + 1);
  }
  const partners: Array<Array<{ to: number; dice: number }>> = vocabulary.map(() => []);
  for (const [key, n] of co) {
    if (n < 3) continue;
    const a = Math.floor(key / v);
    const b = key % v;
    const dice = (2 * n) / (df.get(vocabulary[a]!)! + df.get(vocabulary[b]!)!);
    if (dice < 0.2) continue;
    partners[a]!.push({ to: b, dice });
    partners[b]!.push({ to: a, dice });
  }
  const graph = new IndexGraph();
  vocabulary.forEach((w) => graph.putEntity({ id: `w:${w}`, name: w, type: 'term' }));
  partners.forEach((list, a) => {
    for (const { to, dice } of list.sort((x, y) => y.dice - x.dice).slice(0, 3)) {
      const [s, o] = a < to ? [a, to] : [to, a];
      graph.putTriple({ subject: `w:${vocabulary[s]}`, predicate: 'co_occurs', object: `w:${vocabulary[o]}`, weight: Math.round(dice * 1000) / 1000 });
    }
  });
  return graph;
}

/**
 * WordNet's synonyms: one entity per synset of at least two lemmas one of which is a word of the
 * collection (its first lemma the name, the others aliases; underscores as spaces), no triples.
 */
export function wordnetGraph(docs: ReadonlyArray<{ title: string; text: string }>): IndexGraph {
  const vocabulary = new Set(docs.flatMap((d) => wordsOf(`${d.title} ${d.text}`)));
  const graph = new IndexGraph();
  const file = join(dataDir(), 'corpus', 'wordnet_glosses.jsonl.gz');
  for (const line of gunzipSync(readFileSync(file)).toString('utf8').split('\n')) {
    if (line.trim() === '') continue;
    const row = JSON.parse(line) as { id: string; title: string; lexname: string };
    const lemmas = [...new Set(row.title.split(',').map((l) => l.trim().replace(/_/g, ' ').toLowerCase()))].filter(Boolean);
    if (lemmas.length < 2 || !lemmas.some((l) => vocabulary.has(l))) continue;
    graph.putEntity({ id: `s:${row.id}`, name: lemmas[0]!, type: row.lexname, aliases: lemmas.slice(1) });
  }
  return graph;
}

const round = (n: number): number => Math.round(n * 10_000) / 10_000;

for (const name of collections) {
  const data = loadCollection(name);
  const bench = openBenchEngine(`graph-expand-${name}`);
  try {
    await bench.engine.create(
      'default',
      parseCreateIndex({ name, mappings: { title: { type: 'text', analyzer: 'english' }, text: { type: 'text', analyzer: 'english' } } }),
    );
    const index = bench.engine.get('default', name);
    await index.upsert(data.docs.map((d) => ({ ...d })));
    const graphs = { cooc: cooccurrenceGraph(data.docs), wordnet: wordnetGraph(data.docs) };
    const expanders = new QueryExpanders();
    const exists = (id: string): boolean => index.getDocument(id) !== undefined;
    for (const [graphName, graph] of Object.entries(graphs)) {
      for (const limit of [10, 30]) {
        expanders.register(`${graphName}-${limit}`, async (_tenant, _index, q) =>
          expansionOf(searchGraph(graph, { query: q.trim().slice(0, 1024) || ' ', maxHops: 1, limit }, { exists })),
        );
      }
    }
    const variants: Array<string | undefined> = [undefined, ...expanders.names()];
    const baseline = new Map<string, number>();
    for (const expand of variants) {
      let sum = 0;
      let changed = 0;
      let terms = 0;
      let ms = 0;
      for (const q of data.queries) {
        const body = searchQuerySchema.parse({ q: q.text, size: K, highlight: false, select: ['id'], ...(expand ? { expand } : {}) });
        const started = performance.now();
        const result = await runSearch(index, bench.runner, body, { expanders });
        ms += performance.now() - started;
        const ndcg = ndcgAt(
          K,
          result.hits.map((h) => (h as { id: string }).id),
          data.qrels.get(q.id) ?? new Map(),
        );
        sum += ndcg;
        if (!expand) baseline.set(q.id, ndcg);
        else if (Math.abs(ndcg - baseline.get(q.id)!) > 1e-9) changed++;
        if (expand) terms += (await expanders.expand(expand, index, q.text)).terms.length;
      }
      console.log(
        JSON.stringify({
          collection: name,
          expand: expand ?? 'none',
          entities: expand ? graphs[expand.split('-')[0] as keyof typeof graphs].entities.size : 0,
          triples: expand ? graphs[expand.split('-')[0] as keyof typeof graphs].triples.size : 0,
          queries: data.queries.length,
          ndcg10: round(sum / data.queries.length),
          queriesChanged: changed,
          meanExpandedTerms: round(terms / data.queries.length),
          meanMsPerQuery: round(ms / data.queries.length),
        }),
      );
    }
  } finally {
    await bench.close();
  }
}
