import { describe, expect, it } from 'vitest';
import { generateGraph } from '../../../bench/graph/generate.js';
import { searchGraph } from '../../../plugins/graph/graph-search.js';
import { IndexGraph } from '../../../plugins/graph/index-graph.js';
import { resolveEntities } from '../../../plugins/graph/resolve-entities.js';

/**
 * The best-first walk against an exhaustive one: every entity's best path score within maxHops
 * (a Bellman-Ford pass per hop), then the top `limit`. On the bench's power-law graph, where a
 * few hubs hold most triples and the walk stops early.
 */
function exhaustive(graph: IndexGraph, query: string, maxHops: number): Map<string, number> {
  let best = new Map<string, number>();
  for (const r of resolveEntities(graph, query)) best.set(r.id, r.score);
  for (let hop = 1; hop <= maxHops; hop++) {
    const next = new Map(best);
    for (const [id, score] of best) {
      for (const t of graph.adjacent.get(id) ?? []) {
        const to = t.subject === id ? t.object : t.subject;
        if (to === id) continue;
        const s = (score * t.weight) / (t.weight + 1);
        if (s > (next.get(to) ?? -1)) next.set(to, s);
      }
    }
    best = next;
  }
  return best;
}

describe('graph walk', () => {
  const synsets = Array.from({ length: 3000 }, (_, i) => ({ title: `name${i}, alias${i}`, lexname: `type${i % 7}` }));
  const { entities, triples } = generateGraph(synsets, 3000, 15_000, 5);
  const graph = new IndexGraph();
  for (const e of entities) graph.putEntity(e);
  for (const t of triples) graph.putTriple(t);

  it('answers the best-scoring entities within maxHops, as an exhaustive walk does, with their scores', () => {
    for (const maxHops of [1, 2, 3]) {
      for (const n of [0, 1, 17, 256, 999, 2024]) {
        const query = `name${n}`;
        const got = searchGraph(graph, { query, maxHops, limit: 10 }, { exists: () => true });
        const all = exhaustive(graph, query, maxHops);
        const expected = [...all.values()].sort((a, b) => b - a).slice(0, 10);
        expect(got.entities.map((e) => e.score)).toEqual(expected.map((s) => Math.round(s * 1e6) / 1e6));
        for (const e of got.entities) expect(e.score).toBe(Math.round(all.get(e.id)! * 1e6) / 1e6);
      }
    }
  });

  it('filters by type without stopping the walk at other types', () => {
    const got = searchGraph(graph, { query: 'name17', maxHops: 2, limit: 5, types: ['type3'] }, { exists: () => true });
    const all = exhaustive(graph, 'name17', 2);
    const expected = [...all]
      .filter(([id]) => graph.entities.get(id)!.type === 'type3')
      .map(([, s]) => Math.round(s * 1e6) / 1e6)
      .sort((a, b) => b - a)
      .slice(0, 5);
    expect(got.entities.map((e) => e.score)).toEqual(expected);
    expect(got.entities.every((e) => e.type === 'type3')).toBe(true);
  });
});
