/**
 * Index-scoped keys: a key may be limited to some indexes (`Principal.indexes`, set by the auth
 * provider: exact names and prefix patterns ending in `*`). Outside its patterns an index does not
 * exist for that key: 404 `index_not_found` on every route that names it, absent from lists, and a
 * bulk line naming it fails alone. Without `indexes` on the principal (auth off, or a key of all
 * indexes) nothing is filtered.
 */
import type { Principal } from 'tessera-runtime/plugin';

/** A name, or a prefix followed by `*`; `*` alone is every index. */
export const indexPatternPattern = /^(\*|[a-z0-9][a-z0-9_-]{0,63}\*?)$/;

/** The patterns a principal is limited to, or undefined for all indexes. */
export function indexScopeOf(principal: Principal | undefined): readonly string[] | undefined {
  const indexes = principal?.indexes;
  if (!Array.isArray(indexes) || indexes.includes('*')) return undefined;
  return indexes as string[];
}

export function inIndexScope(scope: readonly string[] | undefined, name: string): boolean {
  if (scope === undefined) return true;
  return scope.some((p) => (p.endsWith('*') ? name.startsWith(p.slice(0, -1)) : name === p));
}

/** Whether `principal` may see index `name`. */
export function canSeeIndex(principal: Principal | undefined, name: string): boolean {
  return inIndexScope(indexScopeOf(principal), name);
}

/** A tenant token's rules (`Principal.searchRules`): index pattern -> `{filter}` or null. */
function searchRulesOf(principal: Principal | undefined): Record<string, { filter: unknown } | null> | undefined {
  const rules = principal?.searchRules;
  return rules !== null && typeof rules === 'object' ? (rules as Record<string, { filter: unknown } | null>) : undefined;
}

/** Routes a tenant token may use: listing, reading an index's definition, and searching. */
const tokenRoutes = new Set(['/v1/indexes', '/v1/indexes/:name', '/v1/indexes/:name/search']);

export function tokenMayUse(principal: Principal | undefined, route: string): boolean {
  return searchRulesOf(principal) === undefined || tokenRoutes.has(route);
}

/**
 * The search body with a tenant token's filter for `index` ANDed in: the rule of the exact name,
 * else of the longest matching prefix pattern. The request cannot widen it: its own filter only
 * narrows further.
 */
export function withTokenFilter<T extends { filter?: unknown }>(principal: Principal | undefined, index: string, body: T): T {
  const rules = searchRulesOf(principal);
  if (!rules) return body;
  let best: string | undefined;
  if (Object.hasOwn(rules, index)) best = index;
  else {
    for (const pattern of Object.keys(rules)) {
      if (pattern.endsWith('*') && index.startsWith(pattern.slice(0, -1)) && (best === undefined || pattern.length > best.length)) best = pattern;
    }
  }
  const rule = best === undefined ? null : rules[best];
  if (!rule) return body;
  return { ...body, filter: body.filter === undefined ? rule.filter : { and: [rule.filter, body.filter] } };
}
