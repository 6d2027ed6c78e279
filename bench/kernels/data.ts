export { prng } from '../support/prng.js';

/** Uniform in [-1, 1): cheap enough to fill gigabytes, and the kernels' speed does not depend on it. */
export function uniformVectors(rand: () => number, count: number, dims: number): Float32Array {
  const out = new Float32Array(count * dims);
  for (let i = 0; i < out.length; i++) out[i] = rand() * 2 - 1;
  return out;
}

export interface TermPostings {
  docs: Uint32Array;
  tfs: Uint32Array;
}

/**
 * Postings of the term of frequency rank `rank` in a Zipf-distributed collection: document
 * frequency N * 0.3 / (rank + 1), documents drawn uniformly, term frequencies geometric from 1.
 */
export function zipfPostings(rand: () => number, docCount: number, rank: number): TermPostings {
  const p = Math.min(1, 0.3 / (rank + 1));
  const docs: number[] = [];
  for (let d = 0; d < docCount; d++) if (rand() < p) docs.push(d);
  const tfs = docs.map(() => {
    let tf = 1;
    while (rand() < 0.35 && tf < 50) tf++;
    return tf;
  });
  return { docs: Uint32Array.from(docs), tfs: Uint32Array.from(tfs) };
}

export function docLengths(rand: () => number, docCount: number): Uint32Array {
  return Uint32Array.from({ length: docCount }, () => 20 + Math.floor(rand() * 280));
}

/** A ranked list of `length` distinct ids from [0, idSpace). */
export function rankedList(rand: () => number, length: number, idSpace: number, shared: number[]): Uint32Array {
  const ids = new Set<number>(shared);
  while (ids.size < length) ids.add(Math.floor(rand() * idSpace));
  const list = [...ids];
  for (let i = list.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [list[i], list[j]] = [list[j]!, list[i]!];
  }
  return Uint32Array.from(list);
}
