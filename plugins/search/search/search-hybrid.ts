import type { KernelRunner } from 'tessera-runtime/kernels';
import type { Ranked } from './fetch.js';
import { DEFAULT_FUSION, fuseWindows, type Fusion, type SideExplain } from './fusion.js';

export { fusions, type Fusion } from './fusion.js';

/** How hybrid fuses its two sides (fusion.ts has the rule and its defaults). */
export interface FusionOptions {
  /**
   * `convex`: each window's scores min-max normalised to 0..1 (a document missing from one window
   * gets 0 there), then `(1 - semanticRatio) * keyword + semanticRatio * semantic`. `rrf`:
   * reciprocal rank fusion of the two windows. @default 'convex'
   */
  fusion?: Fusion;
  rrfK: number;
  semanticRatio: number;
  /** Where `semanticRatio` came from, for `explain` (the request, or the default and why). */
  semanticRatioSource?: { source: 'request' | 'default'; reason?: string; embedder?: string };
}

/** A fused document: its fused score and, for `explain`, what each side gave it. */
export interface Fused extends Ranked {
  explain: { fusion: Fusion; keyword: SideExplain | null; semantic: SideExplain | null } & Record<string, unknown>;
}

/**
 * The fusion phase: the keyword and the vector windows (each best first) fused by a convex
 * combination of normalised scores (fusion.ts), or by reciprocal rank fusion on the RRF kernel,
 * each side weighted `1 - semanticRatio` and `semanticRatio`. When one side finds nothing, RRF
 * returns the other side's order as it is. `total` is the number of distinct documents in the two
 * windows. `explain` gives each hit's rank, score, weight and contribution on each side, the
 * weights and where the ratio came from.
 */
export async function fuse(
  runner: KernelRunner,
  keywordRanked: readonly Ranked[],
  semanticRanked: readonly Ranked[],
  options: FusionOptions,
  want: number,
): Promise<{ total: number; ranked: Fused[] }> {
  const fusion = options.fusion ?? DEFAULT_FUSION;
  const weights = { keyword: 1 - options.semanticRatio, semantic: options.semanticRatio };
  const fused = fuseWindows(keywordRanked, semanticRanked, { fusion, semanticRatio: options.semanticRatio, rrfK: options.rrfK });
  const total = fused.length;
  let order: Ranked[];
  if (total === 0 || want === 0) order = [];
  else if (fusion === 'convex') order = fused.slice(0, want);
  else if (keywordRanked.length === 0 || semanticRanked.length === 0) {
    const only = keywordRanked.length === 0 ? semanticRanked : keywordRanked;
    order = only.slice(0, want).map((r, rank) => ({ id: r.id, score: 1 / (options.rrfK + rank + 1) }));
  } else {
    const ids = fused.map((f) => f.id);
    const slot = new Map(ids.map((id, i) => [id, i]));
    const top = await runner.rrf({
      lists: [keywordRanked.map((r) => slot.get(r.id)!), semanticRanked.map((r) => slot.get(r.id)!)],
      k: Math.min(want, ids.length),
      weights: [weights.keyword, weights.semantic],
      rankConstant: options.rrfK,
      idSpace: ids.length,
    });
    order = Array.from(top.ids, (s, i) => ({ id: ids[s]!, score: top.scores[i]! }));
  }
  const sides = new Map(fused.map((f) => [f.id, f]));
  const ratio = { value: options.semanticRatio, ...(options.semanticRatioSource ?? { source: 'request' as const }) };
  const ranked = order.slice(0, want).map(({ id, score }): Fused => ({
    id,
    score,
    explain: {
      fusion,
      ...(fusion === 'rrf' ? { rrfScore: score } : { convexScore: score }),
      weights,
      semanticRatio: ratio,
      keyword: sides.get(id)?.keyword ?? null,
      semantic: sides.get(id)?.semantic ?? null,
    },
  }));
  return { total, ranked };
}
