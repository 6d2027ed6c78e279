import { describe, expect, it } from 'vitest';
import { englishAnalyzer } from '../../../plugins/search/analyzer.js';
import { decodeCorpusLsa, embedCorpusLsa, encodeCorpusLsa, trainCorpusLsa } from '../../../plugins/search/corpus-lsa.js';
import { randomizedSvd, symmetricEigen } from '../../../plugins/search/randomized-svd.js';

const cosine = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};

// Two topics; "lift" and "soup" each occur with their topic's other words, never with the other's.
const corpus = [
  'Lift of a swept wing at supersonic speed',
  'Airfoil drag and lift in a wind tunnel',
  'Pressure distribution over an airfoil and a wing',
  'Supersonic airfoil drag measured in a tunnel',
  'Tomato soup with basil and garlic',
  'A recipe for garlic bread and tomato salad',
  'Basil pesto, garlic and olive oil recipe',
  'Soup of onion with bread and cheese',
];

describe('randomizedSvd', () => {
  it('finds the leading singular values and orthonormal vectors of an exact reference', () => {
    // 60 x 40 of rank 4 plus a little noise, checked against the eigenvalues of A^T A by Jacobi.
    let seed = 7;
    const rand = (): number => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32) - 0.5;
    const m = 60, n = 40, strengths = [9, 6, 4, 2];
    const u = strengths.map(() => Array.from({ length: m }, rand));
    const v = strengths.map(() => Array.from({ length: n }, rand));
    const dense = Array.from({ length: n }, (_, c) => Array.from({ length: m }, (_, r) => strengths.reduce((s, w, k) => s + w * u[k]![r]! * v[k]![c]!, 0) + 0.001 * rand()));
    const A = { rowCount: m, rows: dense.map(() => Int32Array.from({ length: m }, (_, r) => r)), values: dense.map((col) => Float64Array.from(col)) };
    const { U, sigma } = randomizedSvd(A, 3, 1);
    const gram = new Float64Array(n * n);
    for (let a = 0; a < n; a++) for (let b = 0; b < n; b++) gram[a * n + b] = cosine(dense[a]!, dense[b]!);
    const exact = [...symmetricEigen(gram, n).values].sort((a, b) => b - a).slice(0, 3).map(Math.sqrt);
    for (let j = 0; j < 3; j++) expect(sigma[j]).toBeCloseTo(exact[j]!, 6);
    for (let a = 0; a < 3; a++) {
      for (let b = 0; b < 3; b++) {
        const dot = Array.from({ length: m }, (_, r) => U[r * 3 + a]! * U[r * 3 + b]!).reduce((s, x) => s + x, 0);
        expect(dot).toBeCloseTo(a === b ? 1 : 0, 8);
      }
    }
  });
});

describe('corpus-lsa-v1 model', () => {
  // Two dimensions for two topics: the reduction is what relates words that never meet.
  const model = trainCorpusLsa(corpus, [englishAnalyzer], 2);
  const embed = (text: string): Float32Array => embedCorpusLsa(model, text, [englishAnalyzer]);

  it('puts a query near documents of its topic that do not contain its word', () => {
    const q = embed('lift');
    expect(cosine(q, embed(corpus[3]!))).toBeGreaterThan(cosine(q, embed(corpus[6]!)) + 0.3);
    const soup = embed('soup');
    expect(cosine(soup, embed(corpus[6]!))).toBeGreaterThan(cosine(soup, embed(corpus[3]!)) + 0.3);
  });

  it('is deterministic, unit length, and zero for text it has no term of', () => {
    const again = trainCorpusLsa(corpus, [englishAnalyzer], 2);
    expect([...again.vectors]).toEqual([...model.vectors]);
    expect(model.rank).toBe(2);
    expect(cosine(embed(corpus[0]!), embed(corpus[0]!))).toBeCloseTo(1, 5);
    expect([...embed('quantum chromodynamics')]).toEqual([0, 0]);
  });

  it('embeds the same after a round trip through its stored bytes', () => {
    const decoded = decodeCorpusLsa(encodeCorpusLsa(model));
    expect({ ...decoded, terms: [...decoded.terms] }).toEqual({ ...model, terms: [...model.terms] });
    expect([...embedCorpusLsa(decoded, corpus[1]!, [englishAnalyzer])]).toEqual([...embed(corpus[1]!)]);
  });
});
