import { clientAddress, parseTrustedProxies } from './client-address.js';
import { getRequestIP } from 'h3';
import { type PluginContext, type RouteRequest, TesseraError, z } from 'tessera-runtime/plugin';
import type { RbacPrincipal } from './authenticator.js';
import type { RbacCore } from './core.js';
import { invalidCursor } from './errors.js';
import { idPattern } from './ids.js';

/** What every route file of this plugin shares: the caller, paging, audit context. */
export type Routes = PluginContext['routes'];

export const tags = ['rbac'];

/**
 * The calling key. Every rbac route but sign-in declares `authenticate: 'always'`, so the runtime
 * has authenticated it (and checked the route's permission) even on a listener with auth off:
 * user and key management is never open.
 */
export function principalOf(request: RouteRequest<unknown, unknown>): RbacPrincipal {
  const principal = request.principal as RbacPrincipal | undefined;
  if ((principal?.kind === 'key' || principal?.kind === 'user') && typeof principal.homeTenant === 'string') return principal;
  throw new TesseraError('auth_provider_missing', 500, 'rbac routes need rbac as the auth provider ("auth": {"provider": "rbac"} or no other provider).', {
    plugin: 'rbac',
  });
}

/** `limit` and `cursor` of every list. */
export const pageQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(200).default(50).describe('Items per page (1-200).'),
    cursor: z.string().min(1).max(64).optional().describe('`nextCursor` of the previous page.'),
  })
  .strict();

/** A cursor that is an id from a list keyed by `newId`. */
export function idCursor(cursor: string | undefined): string | undefined {
  if (cursor !== undefined && !idPattern.test(cursor)) throw invalidCursor();
  return cursor;
}

/** Up to `limit` items and the cursor of the next page (the last id), or null at the end. */
export function takePage<T extends { id: string }>(items: Iterable<T>, limit: number): { items: T[]; nextCursor: string | null } {
  const out: T[] = [];
  for (const item of items) {
    if (out.length === limit) return { items: out, nextCursor: out[out.length - 1]!.id };
    out.push(item);
  }
  return { items: out, nextCursor: null };
}

export function auditContext(core: RbacCore, request: RouteRequest<unknown, unknown>): { ip: string | null; requestId: string } {
  const ip = clientAddress(getRequestIP(request.event), request.headers, parseTrustedProxies(core.options.trustedProxies));
  return { ip: ip ?? null, requestId: request.requestId };
}
