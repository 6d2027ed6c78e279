/**
 * Work (bytes a call touches) above which `auto` calls run on the pool: 8 MiB.
 *
 * Measured by `npm run bench:kernels` (the `threshold` lines; table in bench/README.md): f32 dot
 * scans at 384 dims, inline against pooled on 2 threads; the rule is the smallest size whose pooled
 * latency is within 10% of inline. Across four full runs the last size that missed it was 6.1 MB
 * (pooled/inline 1.17-1.46) and the first that met it was 12.3 MB in three runs (0.85-0.97;
 * 24.6 MB in the fourth). Below that the block sits in the L3 cache and one thread scans it faster
 * than a round trip to two. Inline work under 8 MiB blocks the event loop for about 0.4 ms at most.
 */
export const DEFAULT_INLINE_MAX_BYTES = 8 * 1024 * 1024;
