// The kernels module: every export is called by the host with pointers into the shared memory it
// lays out (kernels/src/region-allocator.ts). Nothing here allocates.
export { scanF32, rescoreF32, normsF32 } from "./vector-f32";
export { scanInt8, quantizeInt8, widenInt8 } from "./vector-int8";
export { bm25Search } from "./bm25";
export { rrfFuse } from "./rrf";
export { geoNearest, geoPrepare } from "./geo";
export { streamRead, noop } from "./stream";
export { hnswInsert, hnswSearch, hnswScratchBytes } from "./hnsw";

/** First byte the host may use: everything below holds the module's static data. */
export function heapBase(): usize {
  return __heap_base;
}
