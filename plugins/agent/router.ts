import type { Catalog } from './catalog.js';
import type { Circuits } from './circuits.js';
import { errors } from './errors.js';
import type { CatalogModel } from './seed-models.js';
import { maxTier, taskClasses } from './tiers.js';

/** Where a call goes: a tier (from `tier:N`, a task class or `auto`), or one model first. */
export interface Route {
  tier: number;
  pinned?: CatalogModel;
}

/**
 * Turns a request's `model` into a route: `tier:3` (or `tier-3`), `task:code-review` (or the bare
 * class name), `auto` (tier 4), or a model id of the catalogue, tried first before the rest of its
 * tier.
 */
export function resolveRoute(catalog: Catalog, tenant: string, spec: string): Route {
  const tierMatch = /^tier[:-](\d+)$/.exec(spec);
  if (tierMatch) {
    const tier = Number(tierMatch[1]);
    if (tier < 1 || tier > maxTier) throw errors.unknown_tier({ tier, max: maxTier });
    return { tier };
  }
  if (spec === 'auto') return { tier: taskClasses.general! };
  const task = spec.startsWith('task:') ? spec.slice(5) : spec;
  if (taskClasses[task] !== undefined) return { tier: taskClasses[task]! };
  const model = catalog.get(tenant, spec);
  if (model) return { tier: model.tier, pinned: model };
  if (spec.startsWith('task:')) throw errors.unknown_task_class({ taskClass: task });
  throw errors.model_not_found({ id: spec });
}

const healthRank = { closed: 0, half_open: 1, open: 2 } as const;

/**
 * The candidates of one tier in the order the gateway tries them: healthy circuits first (closed,
 * then half-open, then open ones whose cooldown has not ended, which are skipped when reached), then
 * cheaper prompt price, then lower latency, then id. A pinned model goes first in its tier.
 */
export function orderCandidates(catalog: Catalog, circuits: Circuits, tenant: string, tier: number, pinned?: CatalogModel): CatalogModel[] {
  const health = (m: CatalogModel): number =>
    Math.max(healthRank[circuits.get(tenant, 'model', m.id).current], healthRank[circuits.get(tenant, 'provider', m.provider).current]);
  const models = catalog
    .list(tenant, { tier })
    .sort((a, b) => health(a) - health(b) || a.pricing.promptPer1M - b.pricing.promptPer1M || a.latencyMs - b.latencyMs || a.id.localeCompare(b.id));
  if (!pinned || pinned.tier !== tier) return models;
  return [pinned, ...models.filter((m) => m.id !== pinned.id)];
}
