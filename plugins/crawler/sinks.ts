/**
 * The two ways a crawl feeds an index, shared with the scanner: in-process through the search
 * plugin's service and its batched writer, or over HTTP through a remote engine's bulk API.
 */
export { HttpSink, InProcessSink, type IndexShape, type IndexSink, type SinkResult } from '../scanner/index.js';
export type { SearchService } from '../search/index.js';
