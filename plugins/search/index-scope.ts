/**
 * Index-scoped keys: a key may be limited to some indexes (`Principal.indexes`, set by the auth
 * provider: exact names and prefix patterns ending in `*`). Outside its patterns an index does not
 * exist for that key: 404 `index_not_found` on every route that names it, absent from lists, and a
 * bulk line naming it fails alone. Without `indexes` on the principal (auth off, or a key of all
 * indexes) nothing is filtered.
 */
import type { Principal } from 'tessera/plugin';

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
