/** Bit-per-document sets over a segment's ordinals, as the kernels' filter bitsets lay them out. */
export type Bitset = Uint32Array;

export const wordsFor = (count: number): number => Math.ceil(count / 32);

export function emptySet(count: number): Bitset {
  return new Uint32Array(wordsFor(count));
}

export function fullSet(count: number): Bitset {
  const set = new Uint32Array(wordsFor(count)).fill(0xffffffff);
  const tail = count & 31;
  if (tail !== 0) set[set.length - 1] = (1 << tail) - 1;
  return set;
}

export function has(set: Bitset, d: number): boolean {
  return (set[d >>> 5]! & (1 << (d & 31))) !== 0;
}

export function add(set: Bitset, d: number): void {
  set[d >>> 5]! |= 1 << (d & 31);
}

export function fromSorted(docs: ArrayLike<number>, start: number, end: number, count: number): Bitset {
  const set = emptySet(count);
  for (let i = start; i < end; i++) add(set, docs[i]!);
  return set;
}

export function andInPlace(target: Bitset, other: Bitset): Bitset {
  for (let i = 0; i < target.length; i++) target[i]! &= other[i]!;
  return target;
}

export function orInPlace(target: Bitset, other: Bitset): Bitset {
  for (let i = 0; i < target.length; i++) target[i]! |= other[i]!;
  return target;
}

export function andNotInPlace(target: Bitset, other: Bitset): Bitset {
  for (let i = 0; i < target.length; i++) target[i]! &= ~other[i]!;
  return target;
}

export function popcount(set: Bitset): number {
  let n = 0;
  for (let i = 0; i < set.length; i++) {
    let v = set[i]!;
    v -= (v >>> 1) & 0x55555555;
    v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
    n += (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
  }
  return n;
}

export function* members(set: Bitset): Generator<number> {
  for (let w = 0; w < set.length; w++) {
    let v = set[w]!;
    while (v !== 0) {
      const bit = 31 - Math.clz32(v & -v);
      yield w * 32 + bit;
      v &= v - 1;
    }
  }
}
