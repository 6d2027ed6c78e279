import { reply, z, type PluginContext } from 'tessera-runtime/plugin';
import { engagementLimits, engagementModes, maxOutputTokensCeiling, type Budgets } from './budget.js';
import type { AgentOptions } from './options.js';
import type { SemanticCache } from './semantic-cache.js';

const budgetBody = z.strictObject({
  maxOutputTokens: z.number().int().min(1).max(maxOutputTokensCeiling).optional(),
  suppressThinkingStream: z.boolean().optional(),
  engagementMode: z.enum(engagementModes).optional(),
});

/** `/api/v1/tokens/budget` and `/api/v1/cache/*`. */
export function registerBudgetAndCacheRoutes(ctx: PluginContext<AgentOptions>, d: { budgets: Budgets; cache: SemanticCache }): void {
  const view = (tenant: string) => {
    const budget = d.budgets.get(tenant);
    return { budget: { ...budget, maxOutputTokensCeiling, limits: engagementLimits(budget.engagementMode, ctx.config.maxEscalation) } };
  };

  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/tokens/budget',
    permission: 'agent:read',
    throttle: 'light',
    tags: ['agent: gateway'],
    summary: 'The token budget applied to every gateway call',
    handler: ({ tenant }) => view(tenant),
  });

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/tokens/budget',
    permission: 'models:manage',
    body: budgetBody,
    tags: ['agent: gateway'],
    summary: 'Set max output tokens, thinking suppression and the engagement mode',
    async handler({ tenant, body }) {
      await d.budgets.update(tenant, body);
      await ctx.events.append('budget.changed', d.budgets.get(tenant), { tenant });
      return view(tenant);
    },
  });

  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/cache/stats',
    permission: 'agent:telemetry',
    throttle: 'light',
    tags: ['agent: cache'],
    summary: 'Semantic cache entries, hits, misses, hit rate, tokens and dollars saved',
    handler: async ({ tenant }) => ({
      stats: { ...(await d.cache.stats(tenant)), similarityThreshold: ctx.config.cache.similarityThreshold, enabled: ctx.config.cache.enabled },
    }),
  });

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/cache/clear',
    permission: 'cache:manage',
    tags: ['agent: cache'],
    summary: 'Flush every cached completion of the tenant from the store and the vector index',
    async handler({ tenant }) {
      const cleared = await d.cache.clear(tenant);
      await ctx.events.append('cache.cleared', { entries: cleared }, { tenant });
      return reply(200, { cleared });
    },
  });
}
