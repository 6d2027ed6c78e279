import type { SearchIndex } from '../index/search-index.js';
import type { Deadline } from './deadline.js';
import { projectSource, type CompiledProjection } from './projection.js';

/** What a ranking phase hands the fetch phase: a document id and its score, best first. */
export interface Ranked {
  id: string;
  score: number;
}

export interface Hit {
  id: string;
  score: number;
  source: Record<string, unknown>;
  highlight: Record<string, string[]>;
}

/**
 * The fetch phase, the same for every mode: each ranked document of the page is read from the
 * store once, projected, highlighted, and given what its mode adds (`explain`, `distanceMeters`).
 * A document deleted since it was ranked is left out.
 */
export function fetchHits<R extends Ranked, E extends object = Record<never, never>>(
  index: SearchIndex,
  page: readonly R[],
  options: {
    projection: CompiledProjection;
    highlight?: (source: Record<string, unknown>) => Record<string, string[]>;
    /** Per hit, the fields its mode adds after the highlight. */
    extra?: (ranked: R) => E;
    deadline?: Deadline;
  },
): Array<Hit & E> {
  const hits: Array<Hit & E> = [];
  for (const r of page) {
    options.deadline?.check();
    const source = index.getDocument(r.id);
    if (!source) continue;
    hits.push({
      id: r.id,
      score: r.score,
      source: projectSource(source, options.projection),
      highlight: options.highlight ? options.highlight(source) : {},
      ...(options.extra ? options.extra(r) : ({} as E)),
    });
  }
  return hits;
}
