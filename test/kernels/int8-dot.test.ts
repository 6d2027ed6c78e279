import { describe, expect, it } from 'vitest';
import { instantiateKernels } from '../../kernels/src/instantiate-kernels.js';
import { loadKernelModule, type KernelBuild } from '../../kernels/src/load-kernel-module.js';
import { INT8_PARAM_BYTES } from '../../kernels/src/kernel-exports.js';
import { prng, randInt } from './support/prng.js';

// The int8 scan's inner loop (a row's i8 codes against the query's codes widened to i16) pinned
// against a scalar sum of products. With scale 1 and offset 0 on both sides, a row's dot score is
// exactly that sum (at most dims * 2^14 in magnitude, so exact in f32 for these dims), and a scan
// that keeps every row returns all of them. Scans take rows two at a time when both pass the filter,
// and one at a time when only one of a pair does or for an odd last row.

const DIMS = [0, 1, 7, 8, 31, 32, 45, 128, 384, 1000];

type CodeSource = (rand: () => number, i: number) => number;

const sources: Array<[string, CodeSource]> = [
  ['uniform', (rand) => randInt(rand, -128, 127)],
  ['mostly extreme', (rand) => (rand() < 0.8 ? (rand() < 0.5 ? -128 : 127) : randInt(rand, -128, 127))],
  ['all -128', () => -128],
  ['all 127', () => 127],
];

/** Exact sum of products of `rows` codes rows against one query, as the kernel computes them. */
function scan(build: KernelBuild, dims: number, rows: Int8Array[], query: Int8Array, keep: ((r: number) => boolean) | null = null): Map<number, number> {
  const memory = new WebAssembly.Memory({ initial: 64, maximum: 64, shared: true });
  const kernels = instantiateKernels(loadKernelModule(build), memory);
  const n = rows.length;
  const base = 1 << 16;
  const codesPtr = base;
  const paramsPtr = codesPtr + ((n * dims + 15) & ~15);
  const queryParams = paramsPtr + n * INT8_PARAM_BYTES;
  const queryCodes = queryParams + INT8_PARAM_BYTES;
  const queryWide = queryCodes + ((dims + 15) & ~15) + 2; // deliberately not 16-byte aligned
  const filter = (queryWide + dims * 2 + 15) & ~15;
  const heap = filter + ((n + 31) >> 5) * 4 + 16;
  const i8 = new Int8Array(memory.buffer);
  const f32 = new Float32Array(memory.buffer);
  const i32 = new Int32Array(memory.buffer);
  rows.forEach((row, r) => {
    i8.set(row, codesPtr + r * dims);
    const p = (paramsPtr + r * INT8_PARAM_BYTES) >> 2;
    f32.set([1, 0], p);
    i32[p + 2] = row.reduce((a, b) => a + b, 0);
    f32[p + 3] = 1;
  });
  i8.set(query, queryCodes);
  f32.set([1, 0], queryParams >> 2);
  i32[(queryParams >> 2) + 2] = query.reduce((a, b) => a + b, 0);
  f32[(queryParams >> 2) + 3] = 1;
  const words = new Uint32Array(memory.buffer, filter, (n + 31) >> 5);
  for (let r = 0; r < n; r++) if (keep?.(r) ?? true) words[r >> 5]! |= 1 << (r & 31);
  kernels.widenInt8(queryCodes, dims, queryWide);
  const found = kernels.scanInt8(codesPtr, paramsPtr, dims, 0, n, queryWide, queryParams, 0, keep ? filter : 0, heap, n);
  const scores = new Float32Array(memory.buffer, heap, found);
  const ids = new Uint32Array(memory.buffer, heap + n * 4, found);
  return new Map([...ids].map((id, i) => [id, scores[i]!]));
}

function scalarDot(a: Int8Array, b: Int8Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}

describe('int8 scan inner loop', () => {
  it.each(['release', 'debug'] as const)('widenInt8 sign-extends every code, -128 and 127 included (%s)', (build) => {
    const memory = new WebAssembly.Memory({ initial: 2, maximum: 2, shared: true });
    const kernels = instantiateKernels(loadKernelModule(build), memory);
    const codes = Int8Array.from({ length: 256 }, (_, i) => i - 128);
    new Int8Array(memory.buffer).set(codes, 1024);
    kernels.widenInt8(1024, 256, 2048);
    expect([...new Int16Array(memory.buffer, 2048, 256)]).toEqual([...codes]);
  });

  for (const build of ['release', 'debug'] as const) {
    it.each(DIMS)(`equals the scalar sum of products on random and extreme codes at %i dims (${build})`, (dims) => {
      const rand = prng(7 * dims + 1);
      const rows: Int8Array[] = [];
      const queries: Int8Array[] = [];
      for (const [, rowCode] of sources) {
        for (const [, queryCode] of sources) {
          rows.push(Int8Array.from({ length: dims }, (_, i) => rowCode(rand, i)));
          queries.push(Int8Array.from({ length: dims }, (_, i) => queryCode(rand, i)));
        }
      }
      rows.push(Int8Array.from({ length: dims }, () => randInt(rand, -128, 127))); // an odd count
      // No filter; a filter that keeps every row; one that drops every third row, so pairs with
      // both or only one of their rows kept occur.
      const filters = [null, () => true, (r: number) => r % 3 !== 1];
      for (const query of queries) {
        for (const keep of filters) {
          const expected = new Map(rows.flatMap((row, r) => ((keep?.(r) ?? true) ? [[r, scalarDot(row, query)] as const] : [])));
          const got = scan(build, dims, rows, query, keep);
          expect(got.size).toBe(expected.size);
          expect(got).toEqual(expected);
        }
      }
    });
  }

  it('reaches the extremes of the code range exactly: dims * 128 * 128 and -dims * 128 * 127', () => {
    const dims = 1000;
    const low = new Int8Array(dims).fill(-128);
    const high = new Int8Array(dims).fill(127);
    const got = scan('release', dims, [low, high, low], low);
    expect(got).toEqual(
      new Map([
        [0, dims * 128 * 128],
        [1, -dims * 128 * 127],
        [2, dims * 128 * 128],
      ]),
    );
  });
});
