// Filter bitsets are u32 words, bit i of word i >> 5 set when id i may be returned. A null pointer
// means "no filter" so kernels keep a single code path.

// @ts-ignore: decorator
@inline export function bitsetHas(filterPtr: usize, id: u32): bool {
  if (filterPtr == 0) return true;
  return ((load<u32>(filterPtr + (<usize>(id >>> 5) << 2)) >>> (id & 31)) & 1) != 0;
}
