import type { KernelRunner } from 'tessera-runtime/kernels';
import type { Ranked } from './fetch.js';

export const fusions = ['rrf', 'convex'] as const;
export type Fusion = (typeof fusions)[number];

/** How hybrid fuses its two sides. */
export interface FusionOptions {
  /**
   * `rrf`: reciprocal rank fusion of the two windows. `convex`: each window's scores min-max
   * normalised to 0..1 (a document missing from one window gets 0 there), then
   * `(1 - semanticRatio) * keyword + semanticRatio * semantic`. @default 'rrf'
   */
  fusion?: Fusion;
  rrfK: number;
  semanticRatio: number;
}

/** A fused document: its fused score and, for `explain`, what each side gave it. */
export interface Fused extends Ranked {
  explain: { fusion: Fusion; keyword: Record<string, number> | null; semantic: Record<string, number> | null } & Record<string, unknown>;
}

/**
 * The fusion phase: the keyword and the vector windows (each best first) fused by reciprocal rank
 * fusion on the RRF kernel, each side weighted `1 - semanticRatio` and `semanticRatio`, or by a
 * convex combination of min-max normalised scores. When one side finds nothing, RRF returns the
 * other side's order as it is. `total` is the number of distinct documents in the two windows.
 */
export async function fuse(
  runner: KernelRunner,
  keywordRanked: readonly Ranked[],
  semanticRanked: readonly Ranked[],
  options: FusionOptions,
  want: number,
): Promise<{ total: number; ranked: Fused[] }> {
  const ids: string[] = [];
  const slot = new Map<string, number>();
  const idOf = (id: string): number => {
    let s = slot.get(id);
    if (s === undefined) {
      s = ids.length;
      ids.push(id);
      slot.set(id, s);
    }
    return s;
  };
  const lists = [keywordRanked.map((r) => idOf(r.id)), semanticRanked.map((r) => idOf(r.id))];
  const fusion = options.fusion ?? 'rrf';
  const weights = { keyword: 1 - options.semanticRatio, semantic: options.semanticRatio };
  let order: Array<{ slot: number; score: number }>;
  if (ids.length === 0 || want === 0) order = [];
  else if (fusion === 'convex') order = convexFusion(ids, [keywordRanked, semanticRanked], [weights.keyword, weights.semantic], idOf).slice(0, want);
  else if (lists[0]!.length === 0 || lists[1]!.length === 0) {
    const only = lists[0]!.length === 0 ? 1 : 0;
    order = lists[only]!.map((s, rank) => ({ slot: s, score: 1 / (options.rrfK + rank + 1) }));
  } else {
    const fused = await runner.rrf({
      lists,
      k: Math.min(want, ids.length),
      weights: [weights.keyword, weights.semantic],
      rankConstant: options.rrfK,
      idSpace: ids.length,
    });
    order = Array.from(fused.ids, (s, i) => ({ slot: s, score: fused.scores[i]! }));
  }
  const keywordRanks = explainSide(keywordRanked, weights.keyword, fusion, options.rrfK);
  const semanticRanks = explainSide(semanticRanked, weights.semantic, fusion, options.rrfK);
  const ranked = order.slice(0, want).map(({ slot: s, score }): Fused => {
    const id = ids[s]!;
    return {
      id,
      score,
      explain: {
        fusion,
        ...(fusion === 'rrf' ? { rrfScore: score } : { convexScore: score }),
        keyword: keywordRanks.get(id) ?? null,
        semantic: semanticRanks.get(id) ?? null,
      },
    };
  });
  return { total: ids.length, ranked };
}

/** Each window's scores min-max normalised to 0..1: the best 1, the last 0 (all 1 when they tie). */
function normalise(list: readonly Ranked[]): number[] {
  if (list.length === 0) return [];
  const max = list[0]!.score;
  const min = list[list.length - 1]!.score;
  return list.map((r) => (max > min ? (r.score - min) / (max - min) : 1));
}

/** `convex` fusion: weighted sum of the normalised scores, best first, ties by id. */
function convexFusion(
  ids: readonly string[],
  sides: readonly [readonly Ranked[], readonly Ranked[]],
  weights: readonly [number, number],
  idOf: (id: string) => number,
): Array<{ slot: number; score: number }> {
  const scores = new Float64Array(ids.length);
  sides.forEach((list, side) => {
    const normal = normalise(list);
    list.forEach((r, i) => (scores[idOf(r.id)]! += weights[side]! * normal[i]!));
  });
  return Array.from(scores, (score, slot) => ({ slot, score })).sort((a, b) => b.score - a.score || (ids[a.slot]! < ids[b.slot]! ? -1 : 1));
}

/**
 * Per document of one side's window, what `explain` shows: its rank and raw score there, the
 * side's weight, and what the side added to the fused score (`weight / (rrfK + rank)` for RRF,
 * `weight * normalised` for convex, with the normalised score).
 */
function explainSide(list: readonly Ranked[], weight: number, fusion: Fusion, rrfK: number): Map<string, Record<string, number>> {
  const normal = fusion === 'convex' ? normalise(list) : [];
  return new Map(
    list.map((r, i): [string, Record<string, number>] => [
      r.id,
      fusion === 'convex'
        ? { rank: i + 1, score: r.score, weight, normalized: normal[i]!, contribution: weight * normal[i]! }
        : { rank: i + 1, score: r.score, weight, contribution: weight / (rrfK + i + 1) },
    ]),
  );
}
