const f = Math.fround;

export interface QuantizedRow {
  codes: Int8Array;
  scale: number;
  offset: number;
  sum: number;
}

/**
 * x ~= scale * code + offset, codes in [-128, 127], from the row's min and max. Written in f32
 * steps (Math.fround) so it reproduces the kernel's codes exactly.
 */
export function quantizeRow(x: ArrayLike<number>): QuantizedRow {
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < x.length; i++) {
    lo = Math.min(lo, x[i]!);
    hi = Math.max(hi, x[i]!);
  }
  if (x.length === 0) {
    lo = 0;
    hi = 0;
  }
  lo = f(lo);
  hi = f(hi);
  const scale = f(f(hi - lo) / 255);
  const codes = new Int8Array(x.length);
  let sum = 0;
  for (let i = 0; i < x.length; i++) {
    const code = scale > 0 ? Math.min(Math.floor(f(f(f(x[i]! - lo) / scale) + 0.5)), 255) - 128 : -128;
    codes[i] = code;
    sum += code;
  }
  return { codes, scale, offset: f(lo + f(128 * scale)), sum };
}

/** Dequantised value of code i. */
export const dequantize = (q: QuantizedRow, i: number): number => q.scale * q.codes[i]! + q.offset;
