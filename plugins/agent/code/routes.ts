import { z, type PluginContext } from 'tessera-runtime/plugin';
import type { AgentOptions } from '../options.js';
import type { Repositories } from '../repos/repositories.js';
import { baseCommit, userOf } from '../repos/routes.js';
import type { Declaration } from './extract.js';
import type { CodeIndex, StoredEdge } from './code-index.js';

const graphQuery = z.strictObject({
  /** Declarations and edges a summary holds at most. */
  limit: z.coerce.number().int().min(1).max(10_000).default(100),
  full: z
    .enum(['true', 'false', '1', '0'])
    .default('false')
    .transform((v) => v === 'true' || v === '1'),
  branch: z.string().min(1).max(250).optional(),
});

/** The `limit` declarations with the most call and import sites (then by id), and the edges among them. */
export function summarise(graph: { declarations: Declaration[]; edges: StoredEdge[] }, limit: number) {
  const degree = new Map<string, number>();
  for (const e of graph.edges) {
    if (e.kind === 'contains') continue;
    degree.set(e.from, (degree.get(e.from) ?? 0) + e.weight);
    degree.set(e.to, (degree.get(e.to) ?? 0) + e.weight);
  }
  const ranked = [...graph.declarations].sort((a, b) => (degree.get(b.id) ?? 0) - (degree.get(a.id) ?? 0) || (a.id < b.id ? -1 : 1));
  const declarations = ranked.slice(0, limit);
  const keep = new Set(declarations.map((d) => d.id));
  const inner = graph.edges.filter((e) => keep.has(e.from) && keep.has(e.to));
  const edges = inner.slice(0, limit);
  return { declarations, edges, truncated: declarations.length < graph.declarations.length || edges.length < graph.edges.length };
}

/** `GET /api/v1/repos/{repo_id}/knowledge-graph`. */
export function registerCodeRoutes(ctx: PluginContext<AgentOptions>, repos: Repositories, code: CodeIndex): void {
  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/repos/:repo_id/knowledge-graph',
    permission: 'repos:read',
    query: graphQuery,
    tags: ['agent: repositories'],
    summary:
      'Declarations, calls and imports of a repository parsed with tree-sitter, from its code search index and graph (a summary bounded by limit, or full=true)',
    handler: async (request) =>
      repos.withCheckout(request.tenant, userOf(request), request.params.repo_id!, async (c) => {
        const base = await baseCommit(c, request.query.branch);
        const updated = await code.update(request.tenant, c, base.commit);
        const graph = code.read(request.tenant, c.ref.full);
        const body = request.query.full ? { declarations: graph.declarations, edges: graph.edges, truncated: false } : summarise(graph, request.query.limit);
        return { repo: c.ref.full, branch: base.branch, commit: base.commit, index: updated.index, full: request.query.full, stats: updated.stats, ...body };
      }),
  });
}
