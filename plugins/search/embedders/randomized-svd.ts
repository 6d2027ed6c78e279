import { mulberry32 } from 'tessera-runtime/kernels';

/** A sparse matrix by columns: column c holds `rows[c][i]` -> `values[c][i]`. */
export interface SparseColumns {
  rowCount: number;
  rows: ReadonlyArray<Int32Array>;
  values: ReadonlyArray<Float64Array>;
}

const OVERSAMPLING = 16;
const POWER_ITERATIONS = 1;

/**
 * Training runs on the event loop of a server, for seconds to a minute: every loop below hands the
 * event loop a turn after ~10 ms of work, so requests keep being answered while it runs.
 */
function makePause(sliceMs = 10): () => Promise<void> | undefined {
  let last = performance.now();
  return () => {
    const now = performance.now();
    if (now - last < sliceMs) return undefined;
    return new Promise<void>((resolve) =>
      setImmediate(() => {
        last = performance.now();
        resolve();
      }),
    );
  };
}

/**
 * The leading `rank` left singular vectors of `A` (Halko, Martinsson and Tropp's randomized range
 * finder with power iterations, then the small exact problem solved by Jacobi), deterministic for a
 * seed. Returns U as rowCount x rank, row-major, with the singular values in decreasing order; a
 * matrix of lower rank gets zero columns past its own.
 *
 * For a term x document matrix the terms outnumber the documents of the training sample (5,105
 * terms for Cranfield's 1,400 abstracts, 15,821 for nfcorpus's 3,395), so every dense step runs in
 * document space: subspace iteration on A^T A with Gram-Schmidt over n x l (never m x l), the small
 * problem P^T A^T A P = W diag(s^2) W^T, and U = A P W / s as one sparse product. The sparse
 * products stream the matrix once per product with l-wide contiguous inner loops. (Gram-Schmidt in
 * term space and a dense U = Q W were 50% and 17% of a training before, 31 s for Cranfield at rank
 * 384.)
 */
export async function randomizedSvd(
  A: SparseColumns,
  rank: number,
  seed: number,
  powerIterations = POWER_ITERATIONS,
): Promise<{ U: Float64Array; sigma: Float64Array }> {
  const pause = makePause();
  const m = A.rowCount;
  const n = A.rows.length;
  const l = Math.min(rank + OVERSAMPLING, n, m);
  const rand = mulberry32(seed);
  const gauss = (): number => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
  const Y = new Float64Array(m * l); // A P: m x l, row-major
  const Pr = new Float64Array(n * l); // P row-major, for the products
  /** Y = A P, from P column-major (n x l). */
  const times = async (P: Float64Array): Promise<void> => {
    for (let c = 0; c < n; c++) for (let j = 0; j < l; j++) Pr[c * l + j] = P[j * n + c]!;
    Y.fill(0);
    for (let c = 0; c < n; c++) {
      if ((c & 63) === 0) await pause();
      const rows = A.rows[c]!,
        values = A.values[c]!,
        pc = c * l;
      for (let i = 0; i < rows.length; i++) {
        const v = values[i]!,
          yr = rows[i]! * l;
        for (let j = 0; j < l; j++) Y[yr + j]! += v * Pr[pc + j]!;
      }
    }
  };
  /** A^T Y, column-major n x l. */
  const transposeTimes = async (): Promise<Float64Array> => {
    const Z = new Float64Array(l * n);
    const acc = new Float64Array(l);
    for (let c = 0; c < n; c++) {
      if ((c & 63) === 0) await pause();
      acc.fill(0);
      const rows = A.rows[c]!,
        values = A.values[c]!;
      for (let i = 0; i < rows.length; i++) {
        const v = values[i]!,
          yr = rows[i]! * l;
        for (let j = 0; j < l; j++) acc[j]! += v * Y[yr + j]!;
      }
      for (let j = 0; j < l; j++) Z[j * n + c] = acc[j]!;
    }
    return Z;
  };
  // P = orth((A^T A)^(q+1) Omega): the leading right singular subspace.
  const omega = Float64Array.from({ length: l * n }, gauss);
  await times(omega);
  // Only the last iterate is orthonormalised (twice): one product with A^T A squares the spread of
  // the singular values, which float64 Gram-Schmidt absorbs, so the intermediate passes are skipped.
  let P = await transposeTimes();
  for (let q = 0; q < powerIterations; q++) {
    await times(P);
    P = await transposeTimes();
  }
  await orthonormalise(P, n, l, 2, pause);
  // G = P^T (A^T A P) = W diag(s^2) W^T; the left singular vectors of A P are A P W / s.
  await times(P);
  const Z = await transposeTimes();
  const G = new Float64Array(l * l);
  for (let a = 0; a < l; a++) {
    await pause();
    for (let b = a; b < l; b++) {
      let s = 0;
      for (let c = 0; c < n; c++) s += P[a * n + c]! * Z[b * n + c]!;
      G[a * l + b] = G[b * l + a] = s;
    }
  }
  const { values, vectors } = await symmetricEigen(G, l, pause);
  const k = Math.min(rank, l);
  const order = [...values.keys()].sort((a, b) => values[b]! - values[a]! || a - b).slice(0, k);
  const top = Math.max(0, values[order[0]!] ?? 0);
  // PW = P W diag(1/s): n x rank, row-major. A direction the sample does not span stays zero.
  const W = new Float64Array(l * k);
  for (let j = 0; j < k; j++) {
    const v = values[order[j]!]!;
    const inv = v > 1e-12 * top && v > 0 ? 1 / Math.sqrt(v) : 0;
    for (let p = 0; p < l; p++) W[p * k + j] = vectors[p * l + order[j]!]! * inv;
  }
  const PW = new Float64Array(n * rank);
  for (let c = 0; c < n; c++) {
    if ((c & 63) === 0) await pause();
    for (let p = 0; p < l; p++) {
      const x = P[p * n + c]!;
      for (let j = 0; j < k; j++) PW[c * rank + j]! += x * W[p * k + j]!;
    }
  }
  const U = new Float64Array(m * rank);
  for (let c = 0; c < n; c++) {
    if ((c & 63) === 0) await pause();
    const rows = A.rows[c]!,
      vals = A.values[c]!,
      pc = c * rank;
    for (let i = 0; i < rows.length; i++) {
      const v = vals[i]!,
        ur = rows[i]! * rank;
      for (let j = 0; j < k; j++) U[ur + j]! += v * PW[pc + j]!;
    }
  }
  const sigma = new Float64Array(rank);
  for (let j = 0; j < k; j++) sigma[j] = Math.sqrt(Math.max(0, values[order[j]!]!));
  return { U, sigma };
}

/**
 * Modified Gram-Schmidt over the columns of a column-major rows x cols matrix, `passes` times (two
 * for the final basis). A column that is (numerically) in the span of the earlier ones becomes zero.
 */
async function orthonormalise(Y: Float64Array, rows: number, cols: number, passes: number, pause: () => Promise<void> | undefined): Promise<void> {
  const original = new Float64Array(cols);
  for (let j = 0; j < cols; j++) {
    let n = 0;
    for (let r = 0; r < rows; r++) n += Y[j * rows + r]! ** 2;
    original[j] = n;
  }
  for (let pass = 0; pass < passes; pass++) {
    for (let j = 0; j < cols; j++) {
      await pause();
      const cj = j * rows;
      for (let p = 0; p < j; p++) {
        const cp = p * rows;
        let d = 0;
        for (let r = 0; r < rows; r++) d += Y[cp + r]! * Y[cj + r]!;
        if (d !== 0) for (let r = 0; r < rows; r++) Y[cj + r]! -= d * Y[cp + r]!;
      }
      let n = 0;
      for (let r = 0; r < rows; r++) n += Y[cj + r]! ** 2;
      const s = n > 1e-20 * (pass === 0 ? original[j]! : 1) && n > 0 ? 1 / Math.sqrt(n) : 0;
      for (let r = 0; r < rows; r++) Y[cj + r]! *= s;
    }
  }
}

/** Cyclic Jacobi on a symmetric n x n matrix (row-major, overwritten): eigenvalues and eigenvectors (columns). */
export async function symmetricEigen(
  A: Float64Array,
  n: number,
  pause: () => Promise<void> | undefined = () => undefined,
): Promise<{ values: Float64Array; vectors: Float64Array }> {
  const V = new Float64Array(n * n);
  for (let i = 0; i < n; i++) V[i * n + i] = 1;
  let total = 0;
  for (let i = 0; i < n * n; i++) total += A[i]! ** 2;
  for (let sweep = 0; sweep < 50; sweep++) {
    let off = 0;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) off += A[p * n + q]! ** 2;
    if (off <= 1e-24 * total) break;
    for (let p = 0; p < n; p++) {
      await pause();
      for (let q = p + 1; q < n; q++) {
        const apq = A[p * n + q]!;
        if (apq === 0) continue;
        const theta = (A[q * n + q]! - A[p * n + p]!) / (2 * apq);
        const t = (theta >= 0 ? 1 : -1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let r = 0; r < n; r++) {
          const arp = A[r * n + p]!,
            arq = A[r * n + q]!;
          A[r * n + p] = c * arp - s * arq;
          A[r * n + q] = s * arp + c * arq;
        }
        for (let r = 0; r < n; r++) {
          const apr = A[p * n + r]!,
            aqr = A[q * n + r]!;
          A[p * n + r] = c * apr - s * aqr;
          A[q * n + r] = s * apr + c * aqr;
        }
        for (let r = 0; r < n; r++) {
          const vrp = V[r * n + p]!,
            vrq = V[r * n + q]!;
          V[r * n + p] = c * vrp - s * vrq;
          V[r * n + q] = s * vrp + c * vrq;
        }
      }
    }
  }
  return { values: Float64Array.from({ length: n }, (_, i) => A[i * n + i]!), vectors: V };
}
