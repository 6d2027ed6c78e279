import type { Analyzer } from '../analysis/analyzer.js';
import { termCounts } from './hashed-ngrams-v2.js';
import { randomizedSvd } from './randomized-svd.js';

/**
 * `corpus-lsa-v1`, the default built-in embedder: it learns from the index's own documents by
 * latent semantic analysis. Training weighs each document's terms (the index's analysed terms
 * minus stop words, as hashed-ngrams-v2) by `(1 + ln tf) * (1 + ln((N + 1) / (df + 1)))`, scales
 * each document to unit length, and keeps the leading `rank` left singular vectors of that term x
 * document matrix (a seeded randomized SVD, randomized-svd.ts): a vector per term in which terms
 * that occur in the same documents lie close. A text's embedding is the sum of its terms' vectors
 * with the same weights, L2-normalised; documents and queries are embedded alike.
 *
 * Because two abstracts can be near without sharing a word, this adds evidence BM25 does not have:
 * hybrid at the defaults is above keyword on Cranfield, nfcorpus_pp and CISI (bench/README.md,
 * Relevance), where the hashed embedders only add noise to BM25's own evidence.
 *
 * The model is data of the index (search-index.ts keeps it in LMDB beside the segments) and is
 * frozen between trainings: stored vectors and new queries always come from the same model. It is
 * trained from the live documents whenever the index re-embeds them all (PATCHing the embedder to
 * this model, a re-indexing mapping change, `POST .../embedder/train`), and, in the plugin, in
 * the background as the corpus grows ({@link trainingDue}: the first time at MIN_TRAINING_DOCS
 * live documents, again each time their number has doubled since, so the total work of all the
 * retrainings stays within twice one training and re-embedding of the final corpus). Until the
 * first training the index embeds with hashed-ngrams-v2, and hybrid at its default ratio keeps
 * keyword's ranking (fusion.ts). Terms a model never saw add nothing to a vector, which is why the
 * doubling rule retrains while the vocabulary still grows fast.
 */
export const CORPUS_LSA_V1 = 'corpus-lsa-v1';

/** Training reads at most this many documents (evenly spaced), to bound its time and memory. */
export const MAX_TRAINING_DOCS = 20_000;
/** The most frequent terms (by df) kept; the rest add nothing to a vector. */
export const MAX_TERMS = 20_000;
/**
 * Non-zero dimensions: the SVD's dense work grows with the square (Gram-Schmidt) and the cube
 * (the small eigenproblem) of the rank. 128 trains in 1-2 s on the dev collections; 384 took 7-31 s
 * and is not better in hybrid (bench/search/fusion-lab.ts).
 */
export const DEFAULT_RANK = 128;
/** Fewer live documents than this hold too little co-occurrence to learn from: no training. */
export const MIN_TRAINING_DOCS = 200;
/** Retrain once the live documents are this many times those of the last training. */
export const RETRAIN_GROWTH = 2;
const SEED = 42;

/** Whether an index with `liveDocs` documents, trained on `model` (or never), should train now. */
export function trainingDue(liveDocs: number, model: Pick<CorpusLsaModel, 'docCount'> | undefined): boolean {
  if (liveDocs < MIN_TRAINING_DOCS) return false;
  return model === undefined || liveDocs >= RETRAIN_GROWTH * model.docCount;
}

export interface CorpusLsaModel {
  model: typeof CORPUS_LSA_V1;
  /** The vector size the model embeds into (the index's vectorDimensions when trained). */
  dims: number;
  /** Non-zero dimensions: min(dims, DEFAULT_RANK) unless trained with another rank. */
  rank: number;
  /** Documents the model was trained on. */
  docCount: number;
  trainedAt: string;
  terms: ReadonlyMap<string, number>;
  idf: Float32Array;
  /** terms.size x rank, row-major. */
  vectors: Float32Array;
}

export interface TrainingOptions {
  /** Non-zero dimensions (at most dims). @default DEFAULT_RANK */
  rank?: number;
  /** Products with A^T A before the basis is taken (randomized-svd.ts). @default 1 */
  powerIterations?: number;
}

/**
 * Seconds of work (Cranfield's 1,400 abstracts at the default rank: under 3 s on one loaded core;
 * bench/README.md, Relevance), but it yields to the event loop throughout (randomized-svd.ts).
 */
export async function trainCorpusLsa(
  texts: readonly string[],
  analyzers: readonly Analyzer[],
  dims: number,
  options: TrainingOptions = {},
): Promise<CorpusLsaModel> {
  const step = Math.max(1, texts.length / MAX_TRAINING_DOCS);
  const sample: Array<Map<string, number>> = [];
  for (let i = 0; i < texts.length && sample.length < MAX_TRAINING_DOCS; i = Math.floor(sample.length * step)) {
    sample.push(termCounts(texts[i]!, analyzers));
  }
  const df = new Map<string, number>();
  for (const counts of sample) for (const term of counts.keys()) df.set(term, (df.get(term) ?? 0) + 1);
  const kept = [...df].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).slice(0, MAX_TERMS);
  const terms = new Map(kept.map(([term], i) => [term, i]));
  const n = sample.length;
  const idf = Float32Array.from(kept, ([, f]) => 1 + Math.log((n + 1) / (f + 1)));
  const rows: Int32Array[] = [];
  const values: Float64Array[] = [];
  for (const counts of sample) {
    const w = weigh(counts, terms, idf);
    let norm = 0;
    for (const [, x] of w) norm += x * x;
    const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    rows.push(Int32Array.from(w, ([i]) => i));
    values.push(Float64Array.from(w, ([, x]) => x * scale));
  }
  const rank = Math.min(dims, options.rank ?? DEFAULT_RANK);
  const { U } = await randomizedSvd({ rowCount: terms.size, rows, values }, rank, SEED, options.powerIterations);
  return { model: CORPUS_LSA_V1, dims, rank, docCount: n, trainedAt: new Date().toISOString(), terms, idf, vectors: Float32Array.from(U) };
}

function weigh(counts: ReadonlyMap<string, number>, terms: ReadonlyMap<string, number>, idf: Float32Array): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const [term, tf] of counts) {
    const i = terms.get(term);
    if (i !== undefined) out.push([i, (1 + Math.log(tf)) * idf[i]!]);
  }
  return out;
}

/** A document's or a query's vector: its terms' vectors, weighted as in training, L2-normalised. */
export function embedCorpusLsa(model: CorpusLsaModel, text: string, analyzers: readonly Analyzer[]): Float32Array {
  const { rank, vectors } = model;
  const sum = new Float64Array(rank);
  for (const [i, x] of weigh(termCounts(text, analyzers), model.terms, model.idf)) {
    for (let j = 0, o = i * rank; j < rank; j++) sum[j]! += x * vectors[o + j]!;
  }
  let norm = 0;
  for (let j = 0; j < rank; j++) norm += sum[j]! * sum[j]!;
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  const out = new Float32Array(model.dims);
  for (let j = 0; j < rank; j++) out[j] = sum[j]! * scale;
  return out;
}

/** Bytes for LMDB: a length-prefixed JSON header (with the terms in row order), then idf and vectors as float32. */
export function encodeCorpusLsa(model: CorpusLsaModel): Buffer {
  const header = Buffer.from(
    JSON.stringify({
      model: model.model,
      dims: model.dims,
      rank: model.rank,
      docCount: model.docCount,
      trainedAt: model.trainedAt,
      terms: [...model.terms.keys()],
    }),
  );
  const padded = Math.ceil((4 + header.length) / 4) * 4;
  const out = Buffer.alloc(padded + 4 * (model.idf.length + model.vectors.length));
  out.writeUInt32LE(header.length, 0);
  header.copy(out, 4);
  Buffer.from(model.idf.buffer, model.idf.byteOffset, model.idf.byteLength).copy(out, padded);
  Buffer.from(model.vectors.buffer, model.vectors.byteOffset, model.vectors.byteLength).copy(out, padded + model.idf.byteLength);
  return out;
}

export function decodeCorpusLsa(bytes: Uint8Array): CorpusLsaModel {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const length = buf.readUInt32LE(0);
  const header = JSON.parse(buf.subarray(4, 4 + length).toString('utf8')) as Omit<CorpusLsaModel, 'terms' | 'idf' | 'vectors'> & { terms: string[] };
  if (header.model !== CORPUS_LSA_V1) throw new Error(`stored embedder model is ${String(header.model)}, expected ${CORPUS_LSA_V1}`);
  const padded = Math.ceil((4 + length) / 4) * 4;
  const floats = new Float32Array(buf.buffer.slice(buf.byteOffset + padded, buf.byteOffset + buf.byteLength));
  const m = header.terms.length;
  return {
    ...header,
    terms: new Map(header.terms.map((t, i) => [t, i])),
    idf: floats.slice(0, m),
    vectors: floats.slice(m, m + m * header.rank),
  };
}
