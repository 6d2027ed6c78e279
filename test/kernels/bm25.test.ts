import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKernelRunner, reference, type Bm25Term, type KernelRunner, type PostingsBlock } from '../../kernels/src/index.js';
import type { ReferenceBm25Term } from '../../kernels/src/reference/index.js';
import { prng, randInt } from './support/prng.js';
import { plain } from './support/top-k-assertions.js';

const SIZES = [0, 1, 3, 4, 5, 17, 1023, 10_000];

interface SegmentFixture {
  docCount: number;
  terms: ReferenceBm25Term[];
}

/** Random postings for `termCount` query terms over two fields; term i is looked up in both. */
function randomSegment(rand: () => number, docCount: number, termCount: number): SegmentFixture {
  const fields = [0, 1].map(() => Uint32Array.from({ length: docCount }, () => randInt(rand, 1, 200)));
  const avgdls = fields.map((f) => (docCount ? f.reduce((a, b) => a + b, 0) / docCount : 1));
  const terms: ReferenceBm25Term[] = [];
  for (let t = 0; t < termCount; t++) {
    for (const field of [0, 1]) {
      const density = [0.5, 0.1, 0.02][randInt(rand, 0, 2)]!;
      const docs: number[] = [];
      for (let d = 0; d < docCount; d++) if (rand() < density) docs.push(d);
      terms.push({
        docs: Uint32Array.from(docs),
        tfs: Uint32Array.from(docs, () => randInt(rand, 1, 12)),
        docLengths: fields[field]!,
        avgdl: avgdls[field]!,
        idf: 0.1 + rand() * 5,
        boost: field === 0 ? 2 : 1,
        term: t,
        field,
      });
    }
  }
  return { docCount, terms };
}

describe.each(['release', 'debug'] as const)('bm25 (%s build)', (build) => {
  let runner: KernelRunner;
  beforeAll(() => {
    runner = createKernelRunner({ threads: 2, build });
  });
  afterAll(() => runner.close());

  /** Loads a fixture's postings and lengths; returns the kernel terms and a release function. */
  function load(seg: SegmentFixture): { terms: Bm25Term[]; release: () => void } {
    const lengths = new Map<ArrayLike<number>, ReturnType<KernelRunner['loadDocLengths']>>();
    const postings: PostingsBlock[] = [];
    const terms = seg.terms.map((t) => {
      if (!lengths.has(t.docLengths)) lengths.set(t.docLengths, runner.loadDocLengths(t.docLengths as Uint32Array));
      const p = runner.loadPostings(t.docs as Uint32Array, t.tfs as Uint32Array);
      postings.push(p);
      return { postings: p, docLengths: lengths.get(t.docLengths)!, avgdl: t.avgdl, idf: t.idf, boost: t.boost!, term: t.term!, field: t.field! };
    });
    return { terms, release: () => [...postings, ...lengths.values()].forEach((b) => runner.release(b)) };
  }

  it.each(SIZES)('matches the reference exactly on %i documents for OR, AND and minimumShouldMatch, with and without a filter', async (docCount) => {
    const rand = prng(docCount + 3);
    const termCount = 3;
    const seg = randomSegment(rand, docCount, termCount);
    const { terms, release } = load(seg);
    const allowed = new Set(Array.from({ length: docCount }, (_, d) => d).filter(() => rand() < 0.5));
    const filter = runner.loadBitsetFromIds(allowed, docCount);
    try {
      for (const minimumShouldMatch of [1, 2, termCount]) {
        for (const k of [1, 10, docCount + 5]) {
          for (const withFilter of [false, true]) {
            const actual = await runner.bm25({
              k,
              k1: 1.2,
              b: 0.75,
              minimumShouldMatch,
              segments: [{ docBase: 0, docCount, terms, ...(withFilter ? { filter } : {}) }],
            });
            const expected = reference.bm25Search({
              k,
              k1: 1.2,
              b: 0.75,
              minimumShouldMatch,
              segments: [{ docBase: 0, docCount, terms: seg.terms, ...(withFilter ? { allowed: (d: number) => allowed.has(d) } : {}) }],
            });
            expect(plain(actual)).toEqual(plain(expected));
            // The total counts every match (OR/AND/minimumShouldMatch and filter applied), not only the k kept.
            expect(actual.total).toBe(expected.total);
          }
        }
      }
    } finally {
      release();
      runner.release(filter);
    }
  });

  it.each(['bm25f', 'best'] as const)('combines fields as %s like the reference (f32 against f64), for OR and AND, with a filter', async (fieldScoring) => {
    const rand = prng(fieldScoring === 'bm25f' ? 11 : 12);
    const docCount = 3000;
    const termCount = 3;
    const seg = randomSegment(rand, docCount, termCount);
    // bm25f: one idf per term over its fields (the first field's).
    if (fieldScoring === 'bm25f') seg.terms.forEach((t, i) => (t.idf = seg.terms[i - (i % 2)]!.idf));
    const { terms, release } = load(seg);
    const allowed = new Set(Array.from({ length: docCount }, (_, d) => d).filter(() => rand() < 0.5));
    const filter = runner.loadBitsetFromIds(allowed, docCount);
    try {
      for (const minimumShouldMatch of [1, termCount]) {
        for (const withFilter of [false, true]) {
          const q = { k: 50, k1: 1.2, b: 0.75, minimumShouldMatch, fieldScoring, tieBreaker: 0.3 };
          const actual = await runner.bm25({ ...q, segments: [{ docBase: 0, docCount, terms, ...(withFilter ? { filter } : {}) }] });
          const expected = reference.bm25Search({
            ...q,
            segments: [{ docBase: 0, docCount, terms: seg.terms, ...(withFilter ? { allowed: (d: number) => allowed.has(d) } : {}) }],
          });
          expect(actual.total).toBe(expected.total);
          expect(actual.ids.length).toBe(expected.ids.length);
          // Same scores rank by rank (ids may swap only where two scores tie within f32 rounding).
          expected.scores.forEach((score, i) => expect(actual.scores[i]).toBeCloseTo(score, 4));
          const same = [...actual.ids].filter((id) => [...expected.ids].includes(id)).length;
          expect(same).toBeGreaterThanOrEqual(expected.ids.length - 2);
        }
      }
    } finally {
      release();
      runner.release(filter);
    }
  });

  it('bm25f saturates a term once across fields; best keeps the best field plus the tie-breaker share', async () => {
    // Two fields of length 10 everywhere (avgdl 10, so the length norm is 1). Document 0 holds the
    // term twice in each field; document 1 four times in field 0 only.
    const lengths = runner.loadDocLengths(new Uint32Array(2).fill(10));
    const inBoth = [runner.loadPostings(Uint32Array.of(0, 1), Uint32Array.of(2, 4)), runner.loadPostings(Uint32Array.of(0), Uint32Array.of(2))];
    const terms = inBoth.map((postings, field) => ({ postings, docLengths: lengths, avgdl: 10, idf: 2, term: 0, field }));
    const segments = [{ docBase: 0, docCount: 2, terms }];
    const k1 = 1.2;
    const sat = (tf: number): number => (2 * tf * (k1 + 1)) / (tf + k1);
    try {
      const bm25f = await runner.bm25({ k: 2, k1, segments, fieldScoring: 'bm25f' });
      // Both documents hold the term 4 times in all: one saturation of 4 each, a tie broken by ordinal.
      expect([...bm25f.ids]).toEqual([0, 1]);
      expect(bm25f.scores[0]).toBeCloseTo(sat(4), 5);
      expect(bm25f.scores[1]).toBeCloseTo(sat(4), 5);
      const sum = await runner.bm25({ k: 2, k1, segments });
      // Summed per field, two saturations of 2 beat one of 4.
      expect([...sum.ids]).toEqual([0, 1]);
      expect(sum.scores[0]).toBeCloseTo(2 * sat(2), 5);
      expect(sum.scores[1]).toBeCloseTo(sat(4), 5);
      // Dis-max: document 1's one field of 4 beats document 0's best field of 2 ...
      const best = await runner.bm25({ k: 2, k1, segments, fieldScoring: 'best' });
      expect([...best.ids]).toEqual([1, 0]);
      expect(best.scores[0]).toBeCloseTo(sat(4), 5);
      expect(best.scores[1]).toBeCloseTo(sat(2), 5);
      // ... until the tie-breaker adds half of document 0's other field.
      const tied = await runner.bm25({ k: 2, k1, segments, fieldScoring: 'best', tieBreaker: 0.5 });
      expect([...tied.ids]).toEqual([0, 1]);
      expect(tied.scores[0]).toBeCloseTo(sat(2) * 1.5, 5);
      expect(tied.scores[1]).toBeCloseTo(sat(4), 5);
      // A term's entries must be adjacent for bm25f to find them.
      const split = [terms[0]!, { ...terms[0]!, term: 1 }, { ...terms[1]!, term: 0 }];
      await expect(runner.bm25({ k: 2, segments: [{ docBase: 0, docCount: 2, terms: split }], fieldScoring: 'bm25f' })).rejects.toMatchObject({
        code: 'kernel_invalid_input',
      });
    } finally {
      [...inBoth, lengths].forEach((b) => runner.release(b));
    }
  });

  it('merges segments by score and global id, identically inline and on the pool', async () => {
    const rand = prng(77);
    const fixtures = [4000, 2500, 6000].map((n) => randomSegment(rand, n, 2));
    const loaded = fixtures.map(load);
    let docBase = 0;
    const segments = fixtures.map((f, i) => {
      const seg = { docBase, docCount: f.docCount, terms: loaded[i]!.terms };
      docBase += f.docCount;
      return seg;
    });
    let refBase = 0;
    const refSegments = fixtures.map((f) => {
      const seg = { docBase: refBase, docCount: f.docCount, terms: f.terms };
      refBase += f.docCount;
      return seg;
    });
    const expected = plain(reference.bm25Search({ k: 50, k1: 0.9, b: 0.4, segments: refSegments }));
    const inline = await runner.bm25({ k: 50, k1: 0.9, b: 0.4, segments, mode: 'inline' });
    const pooled = await runner.bm25({ k: 50, k1: 0.9, b: 0.4, segments, mode: 'pool' });
    expect(plain(inline)).toEqual(expected);
    expect(plain(pooled)).toEqual(expected);
    const expectedTotal = reference.bm25Search({ k: 50, k1: 0.9, b: 0.4, segments: refSegments }).total;
    expect(expectedTotal).toBeGreaterThan(50);
    expect(inline.total).toBe(expectedTotal);
    expect(pooled.total).toBe(expectedTotal);
    loaded.forEach((l) => l.release());
  });

  it('ranks equal scores by ordinal ascending', async () => {
    // Ten identical documents containing the term once, lengths all 10.
    const lengths = runner.loadDocLengths(new Uint32Array(10).fill(10));
    const postings = runner.loadPostings(Uint32Array.from([9, 8, 7, 6, 5, 4, 3, 2, 1, 0].reverse()), new Uint32Array(10).fill(1));
    const top = await runner.bm25({ k: 4, segments: [{ docBase: 100, docCount: 10, terms: [{ postings, docLengths: lengths, avgdl: 10, idf: 1 }] }] });
    expect([...top.ids]).toEqual([100, 101, 102, 103]);
    expect(new Set(top.scores).size).toBe(1);
    runner.release(postings);
    runner.release(lengths);
  });

  it('counts a term found in two fields as one match', async () => {
    const lengths = runner.loadDocLengths(Uint32Array.from([5, 5, 5]));
    const inTitle = runner.loadPostings(Uint32Array.from([0, 1]), Uint32Array.from([1, 1]));
    const inBody = runner.loadPostings(Uint32Array.from([0]), Uint32Array.from([1]));
    const other = runner.loadPostings(Uint32Array.from([1, 2]), Uint32Array.from([1, 1]));
    const field = { docLengths: lengths, avgdl: 5, idf: 1 };
    const segments = [
      {
        docBase: 0,
        docCount: 3,
        terms: [
          { ...field, postings: inTitle, term: 0 },
          { ...field, postings: inBody, term: 0 },
          { ...field, postings: other, term: 1 },
        ],
      },
    ];
    // Only document 1 has both query terms; document 0 has term 0 twice (two fields).
    expect([...(await runner.bm25({ k: 10, segments, minimumShouldMatch: 2 })).ids]).toEqual([1]);
    for (const b of [inTitle, inBody, other, lengths]) runner.release(b);
  });

  it('rejects bad parameters with kernel_invalid_input and released blocks with kernel_region_released', async () => {
    const lengths = runner.loadDocLengths(Uint32Array.from([3, 4]));
    const postings = runner.loadPostings(Uint32Array.from([0, 1]), Uint32Array.from([1, 2]));
    const term = { postings, docLengths: lengths, avgdl: 3.5, idf: 1 };
    const seg = { docBase: 0, docCount: 2, terms: [term] };
    const invalid = [
      { k: 0, segments: [seg] },
      { k: 1, k1: Number.NaN, segments: [seg] },
      { k: 1, b: 2, segments: [seg] },
      { k: 1, minimumShouldMatch: 0, segments: [seg] },
      { k: 1, segments: [{ ...seg, terms: [{ ...term, avgdl: 0 }] }] },
      { k: 1, segments: [{ ...seg, terms: [{ ...term, idf: Number.POSITIVE_INFINITY }] }] },
      { k: 1, segments: [{ ...seg, docCount: 1 }] },
      { k: 1, segments: [seg], typo: true },
    ];
    for (const q of invalid) {
      await expect(runner.bm25(q as never)).rejects.toMatchObject({ code: 'kernel_invalid_input', status: 400 });
    }
    expect(() => runner.loadPostings(Uint32Array.from([0]), Uint32Array.from([0]))).toThrow(expect.objectContaining({ code: 'kernel_invalid_input' }));
    expect(() => runner.loadPostings(Uint32Array.from([0, 1]), Uint32Array.from([1]))).toThrow(expect.objectContaining({ code: 'kernel_invalid_input' }));
    runner.release(postings);
    await expect(runner.bm25({ k: 1, segments: [seg] })).rejects.toMatchObject({ code: 'kernel_region_released' });
    runner.release(lengths);
  });
});

describe('postings views', () => {
  it('scores a term addressed as a view into a field-wide block exactly like its own block', async () => {
    const runner = createKernelRunner({ threads: 0 });
    try {
      // Two terms laid out back to back in one block: term A = docs 0..2, term B = docs 1, 3.
      const docs = new Uint32Array([0, 1, 2, 1, 3]);
      const tfs = new Uint32Array([1, 2, 1, 3, 1]);
      const field = runner.loadPostings(docs, tfs);
      const lengths = runner.loadDocLengths(new Uint32Array([3, 5, 2, 4]));
      const viewB = runner.postingsView(field, 3, 2);
      const ownB = runner.loadPostings(new Uint32Array([1, 3]), new Uint32Array([3, 1]));
      expect(viewB.maxDoc).toBe(3);
      const query = (postings: typeof ownB) =>
        runner.bm25({ k: 10, segments: [{ docBase: 0, docCount: 4, terms: [{ postings, docLengths: lengths, avgdl: 3.5, idf: 1.3 }] }] });
      const [fromView, fromOwn] = await Promise.all([query(viewB), query(ownB)]);
      expect(plain(fromView)).toEqual(plain(fromOwn));
      expect(fromView.total).toBe(2);
      expect(() => runner.postingsView(field, 4, 2)).toThrowError(expect.objectContaining({ code: 'kernel_invalid_input' }));
    } finally {
      await runner.close();
    }
  });
});
