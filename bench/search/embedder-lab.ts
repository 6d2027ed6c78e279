// Corpus-trained embedder lab: `npm run build && node dist/bench/search/embedder-lab.js`.
// Can a built-in embedder that learns from the index's own documents (distributional semantics,
// no external model) add the evidence BM25 lacks, and lift hybrid nDCG@10 on Cranfield at the
// default semanticRatio 0.5 to keyword's? Each design embeds the 1,400 abstracts and the 225
// queries at 384 dimensions; the vectors go into a Tessera index as client `_vector`s (english
// analyzer on title and text, flat vector index), and keyword, semantic and hybrid run through
// search() in keyword, semantic and hybrid mode exactly as bench/search/hybrid.ts runs them. The
// models are trained on the documents only (never the queries or qrels). One JSON line a design.
import 'reflect-metadata';
import { englishAnalyzer } from '../../plugins/search/analysis/analyzer.js';
import { embedCorpusLsa, trainCorpusLsa, type CorpusLsaModel } from '../../plugins/search/embedders/corpus-lsa.js';
import { fnv1a } from '../../plugins/search/embedders/feature-hashing.js';
import { embedDocument, embedQuery, type QueryStatistics as EmbeddingCorpus } from '../../plugins/search/embedders/hashed-ngrams-v2.js';
import { parseCreateIndex } from '../../plugins/search/index/mappings.js';
import { search, searchQuerySchema } from '../../plugins/search/search/search.js';
import { openBenchEngine } from '../support/engine.js';
import { englishStopWords } from '../../plugins/search/analysis/stop-words.js';
import { loadCranfield } from './data.js';
import { ndcgAt } from './ndcg.js';
import { emit, round } from './stats.js';
import { K } from './tasks.js';

const DIMS = 384;
const RATIOS = [0.5, 0.2, 0.3, 0.7];
const only = process.argv.slice(2);

const data = loadCranfield();
const docTexts = data.docs.map((d) => `${d.title}\n${d.text}`);

// ---- shared text model: english analysis minus stop words (as hashed-ngrams-v2), vocabulary, idf
function counts(text: string): Map<string, number> {
  const c = new Map<string, number>();
  for (const t of englishAnalyzer.analyze(text)) if (!englishStopWords.has(t.term)) c.set(t.term, (c.get(t.term) ?? 0) + 1);
  return c;
}
const docCounts = docTexts.map(counts);
const vocab = new Map<string, number>();
const df: number[] = [];
for (const c of docCounts)
  for (const t of c.keys()) {
    let i = vocab.get(t);
    if (i === undefined) {
      i = df.length;
      vocab.set(t, i);
      df.push(0);
    }
    df[i]!++;
  }
const N = docCounts.length;
const M = df.length;
const idf = Float64Array.from(df, (f) => 1 + Math.log((N + 1) / (f + 1)));
/** (1 + ln tf) * idf over the vocabulary; terms the corpus never saw are dropped. */
function weights(c: Map<string, number>): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const [t, tf] of c) {
    const i = vocab.get(t);
    if (i !== undefined) out.push([i, (1 + Math.log(tf)) * idf[i]!]);
  }
  return out;
}
const corpus: EmbeddingCorpus = {
  analyzers: [englishAnalyzer],
  docCount: N,
  docFreq: (t) => {
    const i = vocab.get(t);
    return i === undefined ? 0 : df[i]!;
  },
};

function unit(v: Float64Array | Float32Array): Float32Array {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i]! * v[i]!;
  const s = n > 0 ? 1 / Math.sqrt(n) : 0;
  return Float32Array.from(v, (x) => x * s);
}

/** Rows of `T` (M x k, row-major), summed with the text's weights, normalised. */
function foldIn(T: Float64Array, k: number, w: Array<[number, number]>): Float32Array {
  const v = new Float64Array(k);
  for (const [i, x] of w) for (let j = 0, o = i * k; j < k; j++) v[j]! += x * T[o + j]!;
  return unit(v);
}

// ---- random indexing: sparse ternary index vectors, context = idf-weighted co-occurring terms (document window)
const RI_NONZEROS = 8;
function indexVector(i: number, term: string, out: Float64Array, scale: number, k: number): void {
  for (let s = 0; s < RI_NONZEROS; s++) {
    const h = fnv1a(term, 0x51ed + s * 0x9e3779b9);
    out[i * k + (h % k)]! += (h & 0x80000000 ? 1 : -1) * scale;
  }
}
function trainRandomIndexing(k: number, reflective: boolean): Float64Array {
  const terms = [...vocab.keys()];
  const R = new Float64Array(M * k);
  for (let i = 0; i < M; i++) indexVector(i, terms[i]!, R, 1, k);
  const docW = docCounts.map(weights);
  let base = R;
  for (let round = 0; round < (reflective ? 2 : 1); round++) {
    const C = new Float64Array(M * k);
    for (const w of docW) {
      const d = new Float64Array(k);
      for (const [i, x] of w) for (let j = 0; j < k; j++) d[j]! += x * base[i * k + j]!;
      for (const [i, x] of w) for (let j = 0; j < k; j++) C[i * k + j]! += x * d[j]!;
    }
    // A context vector's direction is what it means; centring removes what every term shares.
    const mean = new Float64Array(k);
    for (let i = 0; i < M; i++) {
      let n = 0;
      for (let j = 0; j < k; j++) n += C[i * k + j]! ** 2;
      const s = n > 0 ? 1 / Math.sqrt(n) : 0;
      for (let j = 0; j < k; j++) mean[j]! += (C[i * k + j]! *= s) / M;
    }
    for (let i = 0; i < M; i++) {
      let n = 0;
      for (let j = 0; j < k; j++) n += (C[i * k + j]! -= mean[j]!) ** 2;
      const s = n > 0 ? 1 / Math.sqrt(n) : 0;
      for (let j = 0; j < k; j++) C[i * k + j]! *= s;
    }
    base = C;
  }
  return base;
}

// ---- designs
interface Design {
  name: string;
  /** Returns the embedders after training (timed). */
  train(): { doc(i: number): Float32Array; query(text: string): Float32Array } | Promise<{ doc(i: number): Float32Array; query(text: string): Float32Array }>;
}
/** Two unit vectors side by side, each scaled so the cosine is a*cos(first) + (1-a)*cos(second). */
function concat(a: Float32Array, b: Float32Array, weightA: number): Float32Array {
  const out = new Float32Array(a.length + b.length);
  const sa = Math.sqrt(weightA),
    sb = Math.sqrt(1 - weightA);
  a.forEach((x, i) => (out[i] = x * sa));
  b.forEach((x, i) => (out[a.length + i] = x * sb));
  return out;
}
const lsa = (dims: number): Promise<CorpusLsaModel> => trainCorpusLsa(docTexts, [englishAnalyzer], dims);
const designs: Design[] = [
  { name: 'hashed-ngrams-v2', train: () => ({ doc: (i) => embedDocument(docTexts[i]!, DIMS, [englishAnalyzer]), query: (q) => embedQuery(q, DIMS, corpus) }) },
  {
    name: 'ri-doc',
    train: () => {
      const T = trainRandomIndexing(DIMS, false);
      return { doc: (i) => foldIn(T, DIMS, weights(docCounts[i]!)), query: (q) => foldIn(T, DIMS, weights(counts(q))) };
    },
  },
  {
    name: 'rri-doc',
    train: () => {
      const T = trainRandomIndexing(DIMS, true);
      return { doc: (i) => foldIn(T, DIMS, weights(docCounts[i]!)), query: (q) => foldIn(T, DIMS, weights(counts(q))) };
    },
  },
  {
    name: 'lsa-tfidf',
    train: async () => {
      const m = await lsa(DIMS);
      return { doc: (i) => embedCorpusLsa(m, docTexts[i]!, [englishAnalyzer]), query: (q) => embedCorpusLsa(m, q, [englishAnalyzer]) };
    },
  },
  {
    name: 'lsa-tfidf-192+v2-192',
    train: async () => {
      const m = await lsa(DIMS / 2);
      return {
        doc: (i) => concat(embedCorpusLsa(m, docTexts[i]!, [englishAnalyzer]), embedDocument(docTexts[i]!, DIMS / 2, [englishAnalyzer]), 0.5),
        query: (q) => concat(embedCorpusLsa(m, q, [englishAnalyzer]), embedQuery(q, DIMS / 2, corpus), 0.5),
      };
    },
  },
];

// ---- evaluation through the product's search paths
const bench = openBenchEngine('embedder-lab');
const { engine, runner } = bench;
const mean = async (score: (q: { id: string; text: string }) => Promise<string[]>): Promise<number> => {
  let sum = 0;
  for (const q of data.queries) sum += ndcgAt(K, await score(q), data.qrels.get(q.id) ?? new Map());
  return round(sum / data.queries.length, 4);
};
emit({ bench: 'embedder-lab', docs: N, queries: data.queries.length, vocabulary: M, dims: DIMS });
let keyword: number | undefined;
for (const design of designs.filter((d) => only.length === 0 || only.includes(d.name))) {
  const t0 = performance.now();
  const model = await design.train();
  const trainMs = performance.now() - t0;
  const t1 = performance.now();
  const docVectors = data.docs.map((_, i) => model.doc(i));
  const embedSec = (performance.now() - t1) / 1000;
  const dims = docVectors[0]!.length;
  const name = `lab-${design.name.replace(/[^a-z0-9]/g, '')}`;
  await engine.create(
    'default',
    parseCreateIndex({
      name,
      mappings: { title: { type: 'text', analyzer: 'english' }, text: { type: 'text', analyzer: 'english' } },
      settings: { vectorDimensions: dims },
    }),
  );
  const index = engine.get('default', name);
  const upserted = await index.upsert(data.docs.map((d, i) => ({ ...d, _vector: Array.from(docVectors[i]!) })));
  if (upserted.errors.length > 0) throw new Error(`rejected documents: ${JSON.stringify(upserted.errors.slice(0, 3))}`);
  const vectors = new Map(data.queries.map((q) => [q.id, Array.from(model.query(q.text))]));
  keyword ??= await mean(async (q) =>
    (await search(index, runner, { mode: 'keyword', q: q.text, size: K, from: 0, highlight: false, select: ['id'] })).hits.map((h) => h.id),
  );
  const semantic = await mean(async (q) =>
    (await search(index, runner, { mode: 'semantic', vector: vectors.get(q.id)!, size: K, from: 0, select: ['id'] })).hits.map((h) => h.id),
  );
  const hybrid: Record<string, number> = {};
  for (const ratio of RATIOS) {
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
  emit({
    bench: 'embedder-lab',
    design: design.name,
    dims,
    keyword,
    semantic,
    hybrid,
    trainMs: round(trainMs, 0),
    docEmbedsPerSec: Math.round(N / embedSec),
    meetsKeywordAt05: hybrid['0.5']! >= keyword,
  });
  await engine.delete('default', name);
}
await bench.close();
