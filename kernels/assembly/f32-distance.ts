// SIMD inner loops over f32 rows. Rows need no alignment (v128.load is unaligned-safe) and any
// length works: 16 lanes per step with four accumulators to hide add latency, then 4, then scalar.

export function dotF32(a: usize, b: usize, dims: i32): f32 {
  let acc0 = f32x4.splat(0);
  let acc1 = f32x4.splat(0);
  let acc2 = f32x4.splat(0);
  let acc3 = f32x4.splat(0);
  let i = 0;
  for (; i + 16 <= dims; i += 16) {
    const off = <usize>i << 2;
    acc0 = f32x4.add(acc0, f32x4.mul(v128.load(a + off), v128.load(b + off)));
    acc1 = f32x4.add(acc1, f32x4.mul(v128.load(a + off, 16), v128.load(b + off, 16)));
    acc2 = f32x4.add(acc2, f32x4.mul(v128.load(a + off, 32), v128.load(b + off, 32)));
    acc3 = f32x4.add(acc3, f32x4.mul(v128.load(a + off, 48), v128.load(b + off, 48)));
  }
  for (; i + 4 <= dims; i += 4) {
    const off = <usize>i << 2;
    acc0 = f32x4.add(acc0, f32x4.mul(v128.load(a + off), v128.load(b + off)));
  }
  const acc = f32x4.add(f32x4.add(acc0, acc1), f32x4.add(acc2, acc3));
  let sum = f32x4.extract_lane(acc, 0) + f32x4.extract_lane(acc, 1)
    + f32x4.extract_lane(acc, 2) + f32x4.extract_lane(acc, 3);
  for (; i < dims; i++) {
    const off = <usize>i << 2;
    sum += load<f32>(a + off) * load<f32>(b + off);
  }
  return sum;
}

export function squaredL2F32(a: usize, b: usize, dims: i32): f32 {
  let acc0 = f32x4.splat(0);
  let acc1 = f32x4.splat(0);
  let acc2 = f32x4.splat(0);
  let acc3 = f32x4.splat(0);
  let i = 0;
  for (; i + 16 <= dims; i += 16) {
    const off = <usize>i << 2;
    const d0 = f32x4.sub(v128.load(a + off), v128.load(b + off));
    const d1 = f32x4.sub(v128.load(a + off, 16), v128.load(b + off, 16));
    const d2 = f32x4.sub(v128.load(a + off, 32), v128.load(b + off, 32));
    const d3 = f32x4.sub(v128.load(a + off, 48), v128.load(b + off, 48));
    acc0 = f32x4.add(acc0, f32x4.mul(d0, d0));
    acc1 = f32x4.add(acc1, f32x4.mul(d1, d1));
    acc2 = f32x4.add(acc2, f32x4.mul(d2, d2));
    acc3 = f32x4.add(acc3, f32x4.mul(d3, d3));
  }
  for (; i + 4 <= dims; i += 4) {
    const off = <usize>i << 2;
    const d = f32x4.sub(v128.load(a + off), v128.load(b + off));
    acc0 = f32x4.add(acc0, f32x4.mul(d, d));
  }
  const acc = f32x4.add(f32x4.add(acc0, acc1), f32x4.add(acc2, acc3));
  let sum = f32x4.extract_lane(acc, 0) + f32x4.extract_lane(acc, 1)
    + f32x4.extract_lane(acc, 2) + f32x4.extract_lane(acc, 3);
  for (; i < dims; i++) {
    const off = <usize>i << 2;
    const d = load<f32>(a + off) - load<f32>(b + off);
    sum += d * d;
  }
  return sum;
}
