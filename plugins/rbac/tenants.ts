import { invalidTenant, tenantHeadersDisagree, tenantMismatch } from './errors.js';
import { CROSS_TENANT_PERMISSION } from './permissions.js';

export const tenantIdPattern = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/** Seed 002 sends `X-Tenant`; seed 001's example reads `x-tenant-id`. Both are honoured. */
export const tenantHeaders = ['x-tenant', 'x-tenant-id'] as const;

/** The tenant a request names in its headers, if any; the two headers must agree. */
export function requestedTenant(headers: Headers): string | undefined {
  let found: string | undefined;
  for (const name of tenantHeaders) {
    const value = headers.get(name)?.trim();
    if (value === undefined || value === '') continue;
    if (found !== undefined && found !== value) throw tenantHeadersDisagree(found, value);
    found = value;
  }
  return found;
}

/**
 * The tenant a request acts in: the key's own, or the one its headers name when the key may act
 * across tenants. Throws 403 `tenant_mismatch` otherwise, 400 `invalid_tenant` for a malformed id.
 */
export function effectiveTenant(headers: Headers, keyTenant: string, permissions: ReadonlySet<string>): string {
  const requested = requestedTenant(headers);
  if (requested === undefined || requested === keyTenant) return keyTenant;
  if (!permissions.has(CROSS_TENANT_PERMISSION)) throw tenantMismatch(requested, keyTenant);
  if (!tenantIdPattern.test(requested)) throw invalidTenant(requested);
  return requested;
}
