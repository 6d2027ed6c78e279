/**
 * Vector similarity. Every score is higher-is-better: `dot` and `cosine` are similarities,
 * `euclidean` scores are the negated squared L2 distance.
 */
export type Metric = 'dot' | 'cosine' | 'euclidean';

/** Codes shared with kernels/assembly/metric.ts. */
export const METRIC_CODES: Readonly<Record<Metric, number>> = { dot: 0, cosine: 1, euclidean: 2 };

export const METRICS: readonly Metric[] = ['dot', 'cosine', 'euclidean'];
