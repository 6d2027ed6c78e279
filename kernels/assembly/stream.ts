/**
 * The bandwidth baseline: reads `bytes` from `ptr` as fast as SIMD loads allow and returns a sum
 * so the loads cannot be optimised away. Vector scans are compared against this figure.
 */
export function streamRead(ptr: usize, bytes: usize): f32 {
  let a0 = f32x4.splat(0);
  let a1 = f32x4.splat(0);
  let a2 = f32x4.splat(0);
  let a3 = f32x4.splat(0);
  const end = ptr + (bytes & ~63);
  for (let p = ptr; p < end; p += 64) {
    a0 = f32x4.add(a0, v128.load(p));
    a1 = f32x4.add(a1, v128.load(p, 16));
    a2 = f32x4.add(a2, v128.load(p, 32));
    a3 = f32x4.add(a3, v128.load(p, 48));
  }
  const a = f32x4.add(f32x4.add(a0, a1), f32x4.add(a2, a3));
  return f32x4.extract_lane(a, 0) + f32x4.extract_lane(a, 1) + f32x4.extract_lane(a, 2) + f32x4.extract_lane(a, 3);
}

/** The cheapest possible task, for measuring the pool's round trip. */
export function noop(): i32 {
  return 0;
}
