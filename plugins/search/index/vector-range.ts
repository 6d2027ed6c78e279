/**
 * What a vector component may be. Vectors are kept as float32 (in segments and in kernel memory),
 * so a JSON number beyond float32's range (about ±3.4e38) would become Infinity: refused as
 * `invalid_vector`. With `dot_product` and `euclidean` the scores themselves are float32 sums of
 * products, so components are bounded further (|x| <= 1e16) to keep every score finite. With
 * `cosine` any float32 is fine: rows are rescaled (direction kept) before their norms are taken.
 */
export const F32_MAX = 3.4028234663852886e38;
export const UNSCALED_MAX = 1e16;

export type VectorMetricName = 'cosine' | 'dot_product' | 'euclidean';

/** Why `vector` cannot be stored or searched with `metric`, or undefined when it can. */
export function vectorRangeProblem(vector: readonly unknown[], metric: VectorMetricName): string | undefined {
  const limit = metric === 'cosine' ? F32_MAX : UNSCALED_MAX;
  for (let i = 0; i < vector.length; i++) {
    const n = vector[i];
    if (typeof n !== 'number' || !Number.isFinite(n)) return `component ${i} is not a finite number`;
    if (Math.abs(n) > limit) {
      return metric === 'cosine'
        ? `component ${i} (${n}) is outside float32's range (±3.4e38)`
        : `component ${i} (${n}) is larger than ${UNSCALED_MAX} in magnitude, which ${metric} cannot score without overflow`;
    }
  }
  return undefined;
}

/**
 * For cosine: `vector` scaled so that its largest component has magnitude 1, computed in float64.
 * Cosine is unchanged by a positive scale, and float32 norms and dot products of the result cannot
 * overflow or underflow to zero. Returns the input when no scaling is needed.
 */
export function rescaleForCosine<T extends ArrayLike<number>>(vector: T): T | Float64Array {
  let maxAbs = 0;
  for (let i = 0; i < vector.length; i++) maxAbs = Math.max(maxAbs, Math.abs(vector[i]!));
  if (maxAbs === 0 || (maxAbs <= 1e16 && maxAbs >= 1e-16)) return vector;
  const out = new Float64Array(vector.length);
  for (let i = 0; i < vector.length; i++) out[i] = vector[i]! / maxAbs;
  return out;
}

/**
 * For rows loaded from a segment: cosine rows rescaled as above, and rows holding a non-finite value
 * (written by an older version that accepted values beyond float32) zeroed so the index still
 * loads. The input is never modified: a copy is made when a row changes.
 */
export function prepareRows(data: Float32Array, dims: number, metric: VectorMetricName): { data: Float32Array; zeroed: number } {
  let out: Float32Array | undefined;
  let zeroed = 0;
  for (let row = 0; row < data.length; row += dims) {
    let maxAbs = 0;
    let finite = true;
    for (let i = row; i < row + dims; i++) {
      const v = data[i]!;
      if (!Number.isFinite(v)) finite = false;
      else if (Math.abs(v) > maxAbs) maxAbs = Math.abs(v);
    }
    const rescale = finite && metric === 'cosine' && maxAbs !== 0 && (maxAbs > 1e16 || maxAbs < 1e-16);
    if (finite && !rescale) continue;
    out ??= data.slice();
    if (!finite) {
      out.fill(0, row, row + dims);
      zeroed++;
    } else {
      for (let i = row; i < row + dims; i++) out[i] = data[i]! / maxAbs;
    }
  }
  return { data: out ?? data, zeroed };
}
