/**
 * How hybrid search combines its two windows (keyword, semantic) into one ranking, and what
 * `explain` shows of it. The defaults are chosen so that hybrid never ranks worse than keyword
 * alone by construction, not by tuning to a collection (docs/search-query.md, Hybrid search):
 *
 * - `convex` fusion: each window's scores min-max normalised to 0..1 (a document missing from a
 *   window gets 0 there), then `(1 - semanticRatio) * keyword + semanticRatio * semantic`.
 * - `semanticRatio` 0.3 by default: keyword stays dominant. A document the keyword side did not
 *   retrieve scores at most 0.3, so it can only pass keyword hits whose own normalised score is
 *   below 0.3 / 0.7 = 0.43; the semantic side reorders and fills in, it cannot overturn a strong
 *   keyword match.
 * - 0 by default when the semantic side is lexical (the hashed embedders, and corpus-lsa-v1 before
 *   its first training): those vectors restate BM25's own evidence with hashing noise, and every
 *   ratio measured above 0 ranked worse than keyword on all three dev collections.
 *
 * A ratio the request gives is used as given.
 */

/** A document of one retriever's window, best first. */
export interface Ranked {
  id: string;
  score: number;
}

export const fusions = ['rrf', 'convex'] as const;
export type Fusion = (typeof fusions)[number];

/** The default when the semantic side adds evidence of its own (a trained model, a neural embedder, client vectors). */
export const DEFAULT_SEMANTIC_RATIO = 0.3;
export const DEFAULT_FUSION: Fusion = 'convex';

/** The semantic ratio a request that gives none gets, and why (shown by `explain`). */
export function defaultSemanticRatio(semantic: { embedder?: string; lexical: boolean; untrained?: boolean }): {
  value: number;
  source: 'default';
  reason: string;
} {
  if (!semantic.lexical) {
    return {
      value: DEFAULT_SEMANTIC_RATIO,
      source: 'default',
      reason: semantic.embedder
        ? `the default for an embedder that adds evidence of its own (${semantic.embedder}); keyword stays dominant`
        : 'the default for a query vector given by the client; keyword stays dominant',
    };
  }
  return {
    value: 0,
    source: 'default',
    reason: semantic.untrained
      ? `corpus-lsa-v1 has not learned this index yet (it trains in the background once the index holds enough documents), and its stand-in ${semantic.embedder ?? 'hashed-ngrams-v2'} is lexical: keyword's ranking is kept`
      : `${semantic.embedder ?? 'the embedder'} is lexical (hashed features of the same words BM25 scores): at the default it does not move keyword's ranking; give semanticRatio to mix it in`,
  };
}

/** Per-window score normalisation; the API's `convex` is `minmax`, the others are measured in bench/search/fusion-lab.ts. */
export type Normalization = 'minmax' | 'zscore' | 'dbsf';

export interface FusionRule {
  fusion: Fusion;
  semanticRatio: number;
  rrfK?: number;
  normalization?: Normalization;
}

/** What one side contributed to a fused document's score (`explain`). */
export interface SideExplain {
  rank: number;
  score: number;
  weight: number;
  normalized?: number;
  contribution: number;
}

export interface Fused {
  id: string;
  score: number;
  keyword: SideExplain | null;
  semantic: SideExplain | null;
}

/** Each score of a window mapped by the normalisation; `floor` is what a document missing from the window gets. */
function normaliser(list: readonly Ranked[], normalization: Normalization): { of: (score: number) => number; floor: number } {
  if (list.length === 0) return { of: () => 0, floor: 0 };
  if (normalization === 'minmax') {
    const max = list[0]!.score;
    const min = list[list.length - 1]!.score;
    // Scores that all tie normalise to 1.
    return { of: (s) => (max > min ? (s - min) / (max - min) : 1), floor: 0 };
  }
  let mean = 0;
  for (const r of list) mean += r.score;
  mean /= list.length;
  let variance = 0;
  for (const r of list) variance += (r.score - mean) ** 2;
  const std = Math.sqrt(variance / list.length);
  if (normalization === 'zscore') {
    const of = (s: number): number => (std > 0 ? (s - mean) / std : 0);
    return { of, floor: of(list[list.length - 1]!.score) };
  }
  // dbsf: Qdrant's distribution-based score fusion, mean +- 3 standard deviations mapped to 0..1.
  const lo = mean - 3 * std;
  return { of: (s) => (std > 0 ? Math.min(1, Math.max(0, (s - lo) / (6 * std))) : 1), floor: 0 };
}

/**
 * Fuses a keyword window and a semantic window, both best first, into one list, best first. Keyword weighs `1 - semanticRatio`, semantic `semanticRatio`; each fused document carries
 * each side's rank, raw score, weight, normalised score (convex) and contribution, which add up to
 * its fused score.
 */
export function fuseWindows(keyword: readonly Ranked[], semantic: readonly Ranked[], rule: FusionRule): Fused[] {
  const weights = [1 - rule.semanticRatio, rule.semanticRatio] as const;
  const byId = new Map<string, Fused>();
  const sides = [keyword, semantic] as const;
  const norms = sides.map((list) => (rule.fusion === 'rrf' ? undefined : normaliser(list, rule.normalization ?? 'minmax')));
  sides.forEach((list, side) => {
    const weight = weights[side]!;
    const norm = norms[side];
    list.forEach((r, i) => {
      let f = byId.get(r.id);
      if (!f) byId.set(r.id, (f = { id: r.id, score: 0, keyword: null, semantic: null }));
      const normalized = norm?.of(r.score);
      const explain: SideExplain =
        normalized === undefined
          ? { rank: i + 1, score: r.score, weight, contribution: weight / ((rule.rrfK ?? 60) + i + 1) }
          : { rank: i + 1, score: r.score, weight, normalized, contribution: weight * normalized };
      f.score += explain.contribution;
      if (side === 0) f.keyword = explain;
      else f.semantic = explain;
    });
  });
  const out = [...byId.values()];
  norms.forEach((norm, side) => {
    if (!norm || norm.floor === 0) return;
    for (const f of out) if ((side === 0 ? f.keyword : f.semantic) === null) f.score += weights[side]! * norm.floor;
  });
  // Equal fused scores keep keyword's order, then semantic's, then ids: at semanticRatio 0 the
  // fused list is keyword's ranking exactly (its last hit, normalised to 0, still goes before a
  // document only the semantic side found).
  const rankOf = (s: SideExplain | null): number => s?.rank ?? Number.MAX_SAFE_INTEGER;
  return out.sort(
    (a, b) => b.score - a.score || rankOf(a.keyword) - rankOf(b.keyword) || rankOf(a.semantic) - rankOf(b.semantic) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}
