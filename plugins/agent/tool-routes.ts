import { z, type PluginContext } from 'tessera-runtime/plugin';
import type { DocSearch } from './doc-search.js';
import type { AgentOptions } from './options.js';

/** `/api/v1/tools/search` and its toggle. */
export function registerToolRoutes(ctx: PluginContext<AgentOptions>, d: { docs: DocSearch }): void {
  const tags = ['agent: tools'];
  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/tools/search',
    permission: 'agent:submit',
    body: z.strictObject({ query: z.string().min(1).max(1000), limit: z.number().int().min(1).max(50).default(10) }),
    tags,
    summary: 'Search documentation for the agents (the tenant docs index, and SearXNG when configured)',
    async handler({ tenant, body, signal }) {
      const { results, backends } = await d.docs.query(tenant, body.query, body.limit, signal);
      await ctx.events.append('tool.search', { query: body.query, results: results.length, backends }, { tenant });
      return { results, backends };
    },
  });
  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/tools/search/toggle',
    permission: 'models:manage',
    body: z.strictObject({
      enabled: z.boolean(),
      index: z
        .string()
        .regex(/^[a-z0-9][a-z0-9_-]{0,63}$/)
        .optional(),
    }),
    tags,
    summary: 'Enable or disable the documentation search tool (persisted), and name its index',
    async handler({ tenant, body }) {
      const settings = await d.docs.update(tenant, body);
      await ctx.events.append('tool.toggled', { tool: 'search', enabled: settings.enabled }, { tenant });
      return { tool: { name: 'search', ...settings } };
    },
  });
}
