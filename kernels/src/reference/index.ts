// Plain TypeScript versions of every kernel, written for clarity: the oracle tests and benchmarks
// check the WASM kernels against.
export { topKBySort, type Scored } from './top-k.js';
export { vectorSearch, exactScore, norm, dot, type ReferenceVectorQuery } from './vector-search.js';
export { quantizeRow, dequantize, type QuantizedRow } from './quantize-int8.js';
export { quantizedVectorSearch, approximateScore, type ReferenceQuantizedQuery } from './quantized-vector-search.js';
export { bm25Search, bm25Contribution, type ReferenceBm25Query, type ReferenceBm25Segment, type ReferenceBm25Term } from './bm25.js';
export { rrfFuse, type ReferenceRrfQuery } from './rrf.js';
export { geoNearest, haversineMeters, inBox, type ReferenceGeoQuery } from './geo.js';
