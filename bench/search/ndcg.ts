/**
 * nDCG@k with graded judgments: gain = relevance grade, discount 1 / log2(rank + 1) for ranks
 * 1..k, the ideal ranking made from all judgments of that query. A query without any positive
 * judgment scores 0 (it still counts in the mean, as in test/plugins/search's relevance test).
 */
export function ndcgAt(k: number, ranking: readonly string[], judged: ReadonlyMap<string, number>): number {
  let dcg = 0;
  const seen = new Set<string>(); // an id returned twice earns its gain once
  for (let i = 0; i < Math.min(k, ranking.length); i++) {
    const id = ranking[i]!;
    if (!seen.has(id)) dcg += (judged.get(id) ?? 0) / Math.log2(i + 2);
    seen.add(id);
  }
  const ideal = [...judged.values()]
    .filter((g) => g > 0)
    .sort((a, b) => b - a)
    .slice(0, k);
  let idcg = 0;
  for (let i = 0; i < ideal.length; i++) idcg += ideal[i]! / Math.log2(i + 2);
  return idcg === 0 ? 0 : dcg / idcg;
}
