/**
 * nDCG@k with graded judgments: gain = relevance, discount = log2(rank + 1), the ideal ranking
 * taken from all judgments of the query. A query with no positive judgment scores 0.
 */
export function ndcgAt(k: number, ranking: readonly string[], judged: ReadonlyMap<string, number>): number {
  let dcg = 0;
  for (let i = 0; i < Math.min(k, ranking.length); i++) dcg += (judged.get(ranking[i]!) ?? 0) / Math.log2(i + 2);
  const ideal = [...judged.values()]
    .filter((g) => g > 0)
    .sort((a, b) => b - a)
    .slice(0, k);
  const idcg = ideal.reduce((sum, g, i) => sum + g / Math.log2(i + 2), 0);
  return idcg === 0 ? 0 : dcg / idcg;
}
