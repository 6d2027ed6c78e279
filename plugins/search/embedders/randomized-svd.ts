import { mulberry32 } from 'tessera-runtime/kernels';

/** A sparse matrix by columns: column c holds `rows[c][i]` -> `values[c][i]`. */
export interface SparseColumns {
  rowCount: number;
  rows: ReadonlyArray<Int32Array>;
  values: ReadonlyArray<Float64Array>;
}

const OVERSAMPLING = 16;
const POWER_ITERATIONS = 2;

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
 */
export async function randomizedSvd(A: SparseColumns, rank: number, seed: number): Promise<{ U: Float64Array; sigma: Float64Array }> {
  const pause = makePause();
  const m = A.rowCount;
  const n = A.rows.length;
  const l = Math.min(rank + OVERSAMPLING, n, m);
  const rand = mulberry32(seed);
  const gauss = (): number => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
  const Y = new Float64Array(l * m); // column-major m x l
  const times = async (Z: Float64Array): Promise<void> => {
    Y.fill(0);
    for (let j = 0; j < l; j++) {
      await pause();
      for (let c = 0; c < n; c++) {
        const z = Z[j * n + c]!;
        const rows = A.rows[c]!,
          values = A.values[c]!;
        for (let i = 0; i < rows.length; i++) Y[j * m + rows[i]!]! += values[i]! * z;
      }
    }
  };
  const transposeTimes = async (): Promise<Float64Array> => {
    const Z = new Float64Array(l * n); // column-major n x l
    for (let j = 0; j < l; j++) {
      await pause();
      for (let c = 0; c < n; c++) {
        const rows = A.rows[c]!,
          values = A.values[c]!;
        let s = 0;
        for (let i = 0; i < rows.length; i++) s += values[i]! * Y[j * m + rows[i]!]!;
        Z[j * n + c] = s;
      }
    }
    return Z;
  };
  await times(Float64Array.from({ length: l * n }, gauss));
  await orthonormalise(Y, m, l, 1, pause);
  for (let q = 0; q < POWER_ITERATIONS; q++) {
    const Z = await transposeTimes();
    await orthonormalise(Z, n, l, 1, pause);
    await times(Z);
    await orthonormalise(Y, m, l, q === POWER_ITERATIONS - 1 ? 2 : 1, pause);
  }
  // B = Q^T A; its left singular vectors are the eigenvectors of B B^T = (A^T Q)^T (A^T Q).
  const Bt = await transposeTimes();
  const G = new Float64Array(l * l);
  for (let a = 0; a < l; a++) {
    await pause();
    for (let b = a; b < l; b++) {
      let s = 0;
      for (let c = 0; c < n; c++) s += Bt[a * n + c]! * Bt[b * n + c]!;
      G[a * l + b] = G[b * l + a] = s;
    }
  }
  const { values, vectors } = await symmetricEigen(G, l, pause);
  const k = Math.min(rank, l);
  const order = [...values.keys()].sort((a, b) => values[b]! - values[a]! || a - b).slice(0, k);
  const W = new Float64Array(l * rank); // l x rank, row-major: the chosen eigenvectors
  for (let p = 0; p < l; p++) for (let j = 0; j < k; j++) W[p * rank + j] = vectors[p * l + order[j]!]!;
  const U = new Float64Array(m * rank);
  for (let i = 0; i < m; i++) {
    if ((i & 255) === 0) await pause();
    const row = i * rank;
    for (let p = 0; p < l; p++) {
      const y = Y[p * m + i]!;
      if (y === 0) continue;
      for (let j = 0; j < k; j++) U[row + j]! += y * W[p * rank + j]!;
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
