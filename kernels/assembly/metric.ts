// Metric codes shared with the host (kernels/src/metric.ts). Every kernel ranks higher-is-better:
// euclidean scores are the negated squared distance.
export const METRIC_DOT: i32 = 0;
export const METRIC_COSINE: i32 = 1;
export const METRIC_EUCLIDEAN: i32 = 2;
