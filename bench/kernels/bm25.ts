import { reference, type KernelRunner } from '../../kernels/src/index.js';
import { checkSame } from './check.js';
import { docLengths, prng, zipfPostings } from './data.js';
import { emit, measure, round } from './measure.js';

/** Frequency ranks of the query terms: one common, one mid, one rare word. */
const QUERY_RANKS = [4, 40, 400];

/** BM25 over one segment of Zipf postings, against the reference. Returns reference ms / kernel ms. */
export async function benchBm25(runner: KernelRunner, docCount: number, minMs: number): Promise<number> {
  const rand = prng(docCount);
  const lengths = docLengths(rand, docCount);
  const avgdl = lengths.reduce((a, b) => a + b, 0) / docCount;
  const postings = QUERY_RANKS.map((r) => zipfPostings(rand, docCount, r));
  const idf = postings.map((p) => Math.log(1 + (docCount - p.docs.length + 0.5) / (p.docs.length + 0.5)));
  const lengthsBlock = runner.loadDocLengths(lengths);
  const blocks = postings.map((p) => runner.loadPostings(p.docs, p.tfs));
  try {
    const query = {
      k: 10,
      segments: [{ docBase: 0, docCount, terms: blocks.map((b, i) => ({ postings: b, docLengths: lengthsBlock, avgdl, idf: idf[i]! })) }],
    };
    const refQuery = {
      k: 10,
      segments: [{ docBase: 0, docCount, terms: postings.map((p, i) => ({ docs: p.docs, tfs: p.tfs, docLengths: lengths, avgdl, idf: idf[i]! })) }],
    };
    checkSame(`bm25 ${docCount}`, await runner.bm25({ ...query, mode: 'inline' }), reference.bm25Search(refQuery));
    checkSame(`bm25 ${docCount} pool`, await runner.bm25({ ...query, mode: 'pool' }), reference.bm25Search(refQuery));
    const kernelMs = await measure(() => runner.bm25(query), { minMs });
    const poolMs = await measure(() => runner.bm25({ ...query, mode: 'pool' }), { minMs });
    const referenceMs = await measure(() => reference.bm25Search(refQuery), { minMs, minRuns: 3 });
    const totalPostings = postings.reduce((n, p) => n + p.docs.length, 0);
    emit({
      bench: 'bm25',
      docCount,
      postings: totalPostings,
      ms: round(kernelMs, 3),
      poolMs: round(poolMs, 3),
      referenceMs: round(referenceMs, 3),
      vsReference: round(referenceMs / kernelMs, 1),
    });
    return referenceMs / kernelMs;
  } finally {
    blocks.forEach((b) => runner.release(b));
    runner.release(lengthsBlock);
  }
}
