/**
 * The WebAssembly exports of kernels/assembly/index.ts, typed once. Pointers are byte offsets into
 * the shared memory; every function returning i32 returns how many top-k entries it wrote.
 */
export interface KernelExports {
  heapBase(): number;
  noop(): number;
  streamRead(ptr: number, bytes: number): number;
  normsF32(vectorsPtr: number, dims: number, start: number, end: number, normsPtr: number): void;
  scanF32(
    vectorsPtr: number,
    normsPtr: number,
    dims: number,
    start: number,
    end: number,
    queryPtr: number,
    queryNorm: number,
    metric: number,
    filterPtr: number,
    heapPtr: number,
    k: number,
  ): number;
  rescoreF32(
    vectorsPtr: number,
    normsPtr: number,
    dims: number,
    queryPtr: number,
    queryNorm: number,
    metric: number,
    candidatesPtr: number,
    candidateCount: number,
    heapPtr: number,
    k: number,
  ): number;
  quantizeInt8(vectorsPtr: number, normsPtr: number, dims: number, start: number, end: number, codesPtr: number, paramsPtr: number): void;
  /** The query's int8 codes sign-extended to i16, as scanInt8 takes them. */
  widenInt8(codesPtr: number, dims: number, widePtr: number): void;
  scanInt8(
    codesPtr: number,
    paramsPtr: number,
    dims: number,
    start: number,
    end: number,
    queryWidePtr: number,
    queryParamsPtr: number,
    metric: number,
    filterPtr: number,
    heapPtr: number,
    k: number,
  ): number;
  bm25Search(
    termTablePtr: number,
    termCount: number,
    k1: number,
    b: number,
    docCount: number,
    scratchPtr: number,
    minMatch: number,
    filterPtr: number,
    heapPtr: number,
    k: number,
    fieldMode: number,
    groups: number,
    tie: number,
  ): number;
  rrfFuse(listTablePtr: number, listCount: number, rankConstant: number, idSpace: number, scratchPtr: number, heapPtr: number, k: number): number;
  geoNearest(
    xsPtr: number,
    ysPtr: number,
    zsPtr: number,
    latsPtr: number,
    lonsPtr: number,
    start: number,
    end: number,
    qx: number,
    qy: number,
    qz: number,
    maxChordSq: number,
    useBox: number,
    minLat: number,
    maxLat: number,
    minLon: number,
    maxLon: number,
    filterPtr: number,
    heapPtr: number,
    k: number,
  ): number;
  geoPrepare(latsPtr: number, lonsPtr: number, count: number, xsPtr: number, ysPtr: number, zsPtr: number): void;
  hnswInsert(
    graphPtr: number,
    vectorsPtr: number,
    normsPtr: number,
    start: number,
    end: number,
    scratchPtr: number,
    codesPtr: number,
    paramsPtr: number,
  ): number;
  hnswSearch(
    graphPtr: number,
    vectorsPtr: number,
    normsPtr: number,
    queryPtr: number,
    queryNorm: number,
    ef: number,
    filterPtr: number,
    scratchPtr: number,
    heapPtr: number,
    k: number,
    codesPtr: number,
    paramsPtr: number,
    queryCodesPtr: number,
    queryParamsPtr: number,
  ): number;
  hnswScratchBytes(nodes: number, maxDegree: number, ef: number): number;
}

/** Kernels a task may name; the loaders (normsF32, quantizeInt8, geoPrepare) run inline only. */
export type KernelName = 'noop' | 'streamRead' | 'scanF32' | 'rescoreF32' | 'scanInt8' | 'bm25Search' | 'rrfFuse' | 'geoNearest' | 'hnswInsert' | 'hnswSearch';

export const TASK_KERNELS: readonly KernelName[] = [
  'noop',
  'streamRead',
  'scanF32',
  'rescoreF32',
  'scanInt8',
  'bm25Search',
  'rrfFuse',
  'geoNearest',
  'hnswInsert',
  'hnswSearch',
];

/** Byte sizes of the tables the host writes for bm25Search and rrfFuse (see kernels/assembly). */
export const BM25_TERM_ENTRY_BYTES = 32;
export const RRF_LIST_ENTRY_BYTES = 16;
/** Per-row int8 parameters: f32 scale, f32 offset, i32 code sum, f32 norm. */
export const INT8_PARAM_BYTES = 16;
