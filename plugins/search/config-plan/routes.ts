import { PermissionError, z, type PluginContext, type Principal } from 'tessera-runtime/plugin';
import { indexScopeOf, tokenMayUse } from '../http/index-scope.js';
import { parseConfigSpec } from './config-spec.js';
import type { ConfigPlans } from './config-apply.js';
import { computePlan, planHash, stateOf } from './config-plan.js';
import type { SearchEngine } from '../index/search-engine.js';

const planActions = ['create_index', 'delete_index', 'add_field', 'change_field', 'remove_field', 'update_setting'] as const;
const stepSchema = z.object({ action: z.string(), target: z.string(), details: z.record(z.string(), z.unknown()) });

/** A plan covers every index of the tenant: a key limited to some indexes, or a tenant token, may not make one. */
function requireWholeTenant(principal: Principal | undefined, path: string): void {
  if (indexScopeOf(principal) !== undefined || !tokenMayUse(principal, path)) {
    throw new PermissionError('permission_denied', 'Configuration plans cover every index of the tenant: use a key that is not limited to some indexes.', {
      details: { permission: 'index:admin' },
    });
  }
}

/** `POST /v1/config/plan` (seed 000) and `POST /v1/config/apply`. */
export function registerConfigRoutes(ctx: Pick<PluginContext, 'routes'>, engine: () => SearchEngine, plans: ConfigPlans): void {
  ctx.routes.add({
    method: 'POST',
    path: '/v1/config/plan',
    permission: 'index:admin',
    tags: ['search'],
    summary: "Plan the changes that would bring the tenant's indexes to a configuration spec; changes nothing",
    body: z.unknown(),
    response: z.object({ ok: z.literal(true), plan: z.array(stepSchema), hash: z.string() }),
    handler: async ({ body, tenant, principal }) => {
      requireWholeTenant(principal, '/v1/config/plan');
      const state = stateOf(engine().list(tenant));
      const plan = computePlan(state, parseConfigSpec(body));
      return { plan, hash: planHash(state, plan) };
    },
  });
  ctx.routes.add({
    method: 'POST',
    path: '/v1/config/apply',
    permission: 'index:admin',
    throttle: 'heavy',
    tags: ['search'],
    summary: 'Carry out a plan with its hash, if the indexes have not changed since it was made',
    body: z.strictObject({
      plan: z.array(z.strictObject({ action: z.enum(planActions), target: z.string().min(1), details: z.record(z.string(), z.unknown()) })).max(100_000),
      hash: z.string().regex(/^[0-9a-f]{64}$/, 'the hash the plan came with'),
      allowDestructive: z.boolean().default(false),
    }),
    handler: async ({ body, tenant, principal }) => {
      requireWholeTenant(principal, '/v1/config/apply');
      return plans.apply(tenant, body.plan, body.hash, body.allowDestructive);
    },
  });
}
