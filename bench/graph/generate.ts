/**
 * The bench's graph, generated from a seed (mulberry32) so every run builds the same one:
 * - entities: the first lemma of WordNet synsets (real names, with their repeats: "bank" names
 *   ten synsets), each synset's other lemmas as aliases and its lexname as type, ids `e<n>`;
 * - triples: each picks a subject uniformly and an object by a Zipf law (exponent 1.1) over a
 *   seeded permutation of the entities, so in-degrees follow a power law (a few hubs with
 *   thousands of triples, most entities with one or two); a predicate of eight; weight 0.5-3.
 * Self-loops and repeated (subject, predicate, object) are drawn again.
 */
import { prng } from '../support/prng.js';

export interface BenchEntity {
  id: string;
  name: string;
  type: string;
  aliases?: string[];
}

export interface BenchTriple {
  subject: string;
  predicate: string;
  object: string;
  weight: number;
}

const predicates = ['related_to', 'part_of', 'is_a', 'located_in', 'made_by', 'used_for', 'mentions', 'similar_to'];

export function generateGraph(synsets: ReadonlyArray<{ title: string; lexname: string }>, entities: number, triples: number, seed = 7) {
  const rand = prng(seed);
  const list: BenchEntity[] = [];
  for (let i = 0; i < entities; i++) {
    const s = synsets[i % synsets.length]!;
    const [name, ...aliases] = s.title.split(',').map((l) => l.trim());
    list.push({ id: `e${i}`, name: name!, type: s.lexname, ...(aliases.length > 0 ? { aliases } : {}) });
  }
  // Zipf(1.1) over ranks, by inverse transform on the cumulative weights.
  const cumulative = new Float64Array(entities);
  let total = 0;
  for (let r = 0; r < entities; r++) cumulative[r] = total += 1 / Math.pow(r + 1, 1.1);
  const permutation = Array.from({ length: entities }, (_, i) => i);
  for (let i = entities - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [permutation[i], permutation[j]] = [permutation[j]!, permutation[i]!];
  }
  const zipf = (): number => {
    const x = rand() * total;
    let lo = 0;
    let hi = entities - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cumulative[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return permutation[lo]!;
  };
  const seen = new Set<string>();
  const out: BenchTriple[] = [];
  while (out.length < triples) {
    const s = Math.floor(rand() * entities);
    const o = zipf();
    const p = predicates[Math.floor(rand() * predicates.length)]!;
    const key = `${s} ${p} ${o}`;
    if (s === o || seen.has(key)) continue;
    seen.add(key);
    out.push({ subject: `e${s}`, predicate: p, object: `e${o}`, weight: Math.round((0.5 + rand() * 2.5) * 100) / 100 });
  }
  return { entities: list, triples: out };
}
