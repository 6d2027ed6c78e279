// Hybrid benchmark: `npm run bench:hybrid` (= npm run build && node dist/bench/search/hybrid.js).
// In one run: Cranfield loaded in-process into Tessera indexes with autoEmbed and the built-in
// embedder (english analyzer on title and text, as bench/search/tessera.ts), then nDCG@10 of
// keyword, semantic and hybrid (the API's defaults, semanticRatio 0.5, and a sweep) for
// hashed-ngrams-v2 and v1 at 384 dimensions, v2 at 768 and 4096, and corpus-lsa-v1 at 384 (trained
// on the loaded documents through the product's retrain path, buildMs includes it); then the embedder's
// throughput on the WordNet glosses. Prints one JSON line per result and ends with {"summary": ...}.
import 'reflect-metadata';
import { englishAnalyzer, standardAnalyzer } from '../../plugins/search/analysis/analyzer.js';
import { embedCorpusLsa } from '../../plugins/search/embedders/corpus-lsa.js';
import { embedderFor, embedQueryText } from '../../plugins/search/embedders/embedder.js';
import type { BuiltinModel } from '../../plugins/search/embedders/embedder-setting.js';
import { embedText } from '../../plugins/search/embedders/hashed-embedder.js';
import { documentFeatures, embedDocument, queryFeatures } from '../../plugins/search/embedders/hashed-ngrams-v2.js';
import { parseCreateIndex } from '../../plugins/search/index/mappings.js';
import { search, searchQuerySchema } from '../../plugins/search/search/search.js';
import { openBenchEngine } from '../support/engine.js';
import { DEFAULT_SEMANTIC_RATIO } from '../../plugins/search/search/fusion.js';
import { loadCranfield, loadWordnet } from './data.js';
import { ndcgAt } from './ndcg.js';
import { emit, round } from './stats.js';
import { K } from './tasks.js';

// The ratio a hybrid request without semanticRatio gets when its embedder adds evidence (fusion.ts).
const DEFAULT_RATIO = DEFAULT_SEMANTIC_RATIO;
const SWEEP = [0.2, 0.5, 0.7];
const CONFIGS: Array<{ model: BuiltinModel; dims: number }> = [
  { model: 'hashed-ngrams-v2', dims: 384 },
  { model: 'hashed-ngrams-v1', dims: 384 },
  { model: 'hashed-ngrams-v2', dims: 768 },
  { model: 'hashed-ngrams-v2', dims: 4096 },
  { model: 'corpus-lsa-v1', dims: 384 },
];

const started = performance.now();
const data = loadCranfield();
const bench = openBenchEngine('hybrid');
const { engine, runner } = bench;

const mean = async (score: (q: { id: string; text: string }) => Promise<string[]>): Promise<number> => {
  let sum = 0;
  for (const q of data.queries) sum += ndcgAt(K, await score(q), data.qrels.get(q.id) ?? new Map());
  return round(sum / data.queries.length, 4);
};

const summary: Record<string, unknown> = {};
let keyword: number | undefined;
for (const { model, dims } of CONFIGS) {
  const name = `${model.replace(/[^a-z0-9]/g, '')}-${dims}`;
  await engine.create(
    'default',
    parseCreateIndex({
      name,
      mappings: { title: { type: 'text', analyzer: 'english' }, text: { type: 'text', analyzer: 'english' } },
      settings: { vectorDimensions: dims, autoEmbed: true, embedder: { type: 'builtin', model } },
    }),
  );
  const index = engine.get('default', name);
  const t0 = performance.now();
  const upserted = await index.upsert(data.docs);
  if (upserted.errors.length > 0) throw new Error(`rejected documents: ${JSON.stringify(upserted.errors.slice(0, 3))}`);
  if (index.trainsEmbedder()) await index.retrainEmbedder();
  const buildMs = performance.now() - t0;
  const embedder = embedderFor(index.record.settings, index.embeddingCorpus(), index.embedders)!;
  const vectors = new Map<string, number[]>();
  for (const q of data.queries) vectors.set(q.id, await embedQueryText(embedder, q.text));

  keyword ??= await mean(async (q) =>
    (await search(index, runner, { mode: 'keyword', q: q.text, size: K, from: 0, highlight: false, select: ['id'] })).hits.map((h) => h.id),
  );
  const semantic = await mean(async (q) =>
    (await search(index, runner, { mode: 'semantic', vector: vectors.get(q.id)!, size: K, from: 0, select: ['id'] })).hits.map((h) => h.id),
  );
  const hybrid: Record<string, number> = {};
  for (const ratio of [DEFAULT_RATIO, ...SWEEP]) {
    hybrid[String(ratio)] = await mean(async (q) => {
      const body = searchQuerySchema.parse({
        mode: 'hybrid',
        q: q.text,
        vector: vectors.get(q.id),
        size: K,
        semanticRatio: ratio,
        highlight: false,
        select: ['id'],
      });
      return (await search(index, runner, { ...body, mode: 'hybrid', semanticRatio: ratio, vector: body.vector!, filter: undefined })).hits.map((h) => h.id);
    });
  }
  const result = {
    bench: 'hybrid-cranfield',
    model,
    dims,
    docs: data.docs.length,
    queries: data.queries.length,
    buildMs: round(buildMs, 1),
    keyword,
    semantic,
    hybrid,
    hybridAtDefaultMeetsKeyword: hybrid[String(DEFAULT_RATIO)]! >= keyword,
  };
  emit(result);
  summary[name] = { semantic, hybrid };
}

// Why hybrid stays below keyword: the same v2 features scored exactly (sparse cosine, no hashing,
// so no collision noise), fused with the keyword window by the documented RRF formula in JS.
{
  const index = engine.get('default', 'hashedngramsv2-384');
  const corpus = index.embeddingCorpus();
  const unit = (m: Map<string, number>): Map<string, number> => {
    let n = 0;
    for (const v of m.values()) n += v * v;
    const scale = n > 0 ? 1 / Math.sqrt(n) : 0;
    return new Map([...m].map(([k, v]) => [k, v * scale]));
  };
  const docs = data.docs.map((d) => ({ id: d.id, f: unit(documentFeatures(`${d.title}\n${d.text}`, corpus.analyzers)) }));
  const { rrfK, windowSize } = searchQuerySchema.parse({ mode: 'hybrid', q: 'x' });
  const exact = new Map<string, string[]>();
  const keywordWindow = new Map<string, string[]>();
  for (const q of data.queries) {
    const qf = unit(queryFeatures(q.text, corpus));
    const scored = docs
      .map((d) => {
        let s = 0;
        for (const [k, v] of qf) s += v * (d.f.get(k) ?? 0);
        return { id: d.id, s };
      })
      .filter((x) => x.s > 0);
    exact.set(
      q.id,
      scored
        .sort((a, b) => b.s - a.s || (a.id < b.id ? -1 : 1))
        .slice(0, windowSize)
        .map((x) => x.id),
    );
    keywordWindow.set(
      q.id,
      (await search(index, runner, { mode: 'keyword', q: q.text, size: windowSize, from: 0, highlight: false, select: ['id'] })).hits.map((h) => h.id),
    );
  }
  const fuse = (a: string[], b: string[], ratio: number): string[] => {
    const score = new Map<string, number>();
    a.forEach((id, i) => score.set(id, (score.get(id) ?? 0) + (1 - ratio) / (rrfK + i + 1)));
    b.forEach((id, i) => score.set(id, (score.get(id) ?? 0) + ratio / (rrfK + i + 1)));
    return [...score].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1)).map(([id]) => id);
  };
  const semantic = await mean(async (q) => exact.get(q.id)!.slice(0, K));
  const hybrid: Record<string, number> = {};
  for (const ratio of [DEFAULT_RATIO, ...SWEEP]) hybrid[String(ratio)] = await mean(async (q) => fuse(keywordWindow.get(q.id)!, exact.get(q.id)!, ratio));
  emit({
    bench: 'hybrid-cranfield',
    model: 'hashed-ngrams-v2 features, unhashed (exact sparse cosine)',
    dims: null,
    keyword,
    semantic,
    hybrid,
    hybridAtDefaultMeetsKeyword: hybrid[String(DEFAULT_RATIO)]! >= keyword!,
  });
  summary['unhashed-v2-features'] = { semantic, hybrid };
}

// Throughput of the document side (what ingestion pays) on the WordNet glosses, one core.
const glosses = (await loadWordnet()).map((d) => `${d.title}\n${d.text}`);
const throughput: Record<string, number> = {};
const lsa = engine.get('default', 'corpuslsav1-384').termModel!;
for (const [label, embed] of [
  ['hashed-ngrams-v1', (t: string) => embedText(t, 384)],
  ['hashed-ngrams-v2 standard', (t: string) => embedDocument(t, 384, [standardAnalyzer])],
  ['hashed-ngrams-v2 english', (t: string) => embedDocument(t, 384, [englishAnalyzer])],
  // Trained on Cranfield: many gloss words are unknown to it, which makes each embed cheaper.
  ['corpus-lsa-v1 english (Cranfield model)', (t: string) => embedCorpusLsa(lsa, t, [englishAnalyzer])],
] as const) {
  for (const t of glosses.slice(0, 2000)) embed(t); // warm-up
  const t0 = performance.now();
  for (const t of glosses) embed(t);
  const seconds = (performance.now() - t0) / 1000;
  throughput[label] = Math.round(glosses.length / seconds);
  emit({ bench: 'embed-throughput', embedder: label, dims: 384, texts: glosses.length, seconds: round(seconds, 2), embedsPerSec: throughput[label] });
}

emit({
  summary: {
    keyword,
    defaultSemanticRatio: DEFAULT_RATIO,
    ...summary,
    embedsPerSec384: throughput,
    totalSeconds: round((performance.now() - started) / 1000, 1),
  },
});
await bench.close();
