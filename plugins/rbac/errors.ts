import { AuthenticationError, ConflictError, InputError, NotFoundError, PermissionError, TesseraError } from 'tessera-runtime/plugin';

const plugin = 'rbac';

/**
 * The codes this plugin adds to docs/errors.md. It also raises the runtime's `missing_api_key`,
 * `invalid_api_key` and `permission_denied`, which docs/errors.md lists under HTTP.
 */
export const rbacErrorCodes = [
  { code: 'invalid_tenant', status: 400, when: 'A tenant header is not a tenant id (1-63 of `a-z 0-9 _ -`, starting with a letter or digit).' },
  { code: 'unknown_role', status: 400, when: 'A user is given a role that is neither built in nor defined in the tenant; `details.roles` lists them.' },
  { code: 'unknown_permission', status: 400, when: 'Scopes or a custom role name permissions that do not exist; `details.permissions` lists them.' },
  { code: 'invalid_expiry', status: 400, when: "A key's `expiresAt` is not in the future." },
  { code: 'invalid_cursor', status: 400, when: "A list's `cursor` is not one this endpoint returned." },
  {
    code: 'tenant_mismatch',
    status: 403,
    when: "The request names a tenant (`X-Tenant` or `x-tenant-id`) other than the key's, and the key lacks `tenants:manage`; or the two headers disagree.",
  },
  {
    code: 'grant_exceeds_permissions',
    status: 403,
    when: "A key's scopes, a user's roles or a custom role would grant permissions the caller (or the key's owner) does not hold; `details.notHeld` lists them.",
  },
  { code: 'user_not_found', status: 404, when: "No user with that id or name in the caller's tenant." },
  { code: 'key_not_found', status: 404, when: "No API key with that id that the caller may see (other tenants' keys are not found either)." },
  { code: 'user_exists', status: 409, when: 'A user with that name already exists in the tenant.' },
  { code: 'role_exists', status: 409, when: 'A role with that name is built in or already defined in the tenant.' },
  {
    code: 'session_invalid',
    status: 401,
    when: 'The session cookie names no session (signed out, or never signed in), or the key it was opened with is no longer valid.',
  },
  {
    code: 'invalid_credentials',
    status: 401,
    when: 'Signing in with a user name and password failed: no such user in the tenant, no password set, a wrong password or a disabled user (the answer does not say which).',
  },
  { code: 'session_expired', status: 401, when: 'The browser session passed its lifetime or its idle timeout; sign in again.' },
  {
    code: 'csrf_token_invalid',
    status: 403,
    when: "A state-changing request authenticated by the session cookie without the session's `x-csrf-token` header.",
  },
  {
    code: 'too_many_auth_failures',
    status: 429,
    when: 'Too many failed API key attempts from this address; every key is refused from it until `Retry-After` seconds have passed.',
  },
] as const;

export const missingApiKey = (): TesseraError =>
  new AuthenticationError('missing_api_key', 'Send an API key in the x-api-key header or as Authorization: Bearer <key>.', { plugin });

/** One answer for unknown, wrong, malformed, expired and revoked keys: it must not say which. */
export const invalidApiKey = (): TesseraError => new AuthenticationError('invalid_api_key', 'The API key is not valid.', { plugin });

export const sessionInvalid = (): TesseraError => new AuthenticationError('session_invalid', 'The session is not valid; sign in again.', { plugin });

/** One answer for an unknown user, a user without a password, a wrong password and a disabled user. */
export const invalidCredentials = (): TesseraError => new AuthenticationError('invalid_credentials', 'The user name or password is not valid.', { plugin });

export const sessionExpired = (): TesseraError => new AuthenticationError('session_expired', 'The session has expired; sign in again.', { plugin });

export const csrfTokenInvalid = (): TesseraError =>
  new PermissionError('csrf_token_invalid', "A request that changes state with the session cookie must send the session's x-csrf-token header.", { plugin });

export const permissionDenied = (permission: string): TesseraError =>
  new PermissionError('permission_denied', `Missing permission ${permission}.`, { details: { permission }, plugin });

export const tenantMismatch = (requested: string, tenant: string): TesseraError =>
  new PermissionError('tenant_mismatch', `This key belongs to tenant "${tenant}" and cannot act in tenant "${requested}".`, {
    details: { requested, tenant },
    plugin,
  });

export const tenantHeadersDisagree = (first: string, second: string): TesseraError =>
  new PermissionError('tenant_mismatch', `X-Tenant and x-tenant-id name different tenants ("${first}", "${second}").`, {
    details: { requested: [first, second] },
    plugin,
  });

export const grantExceedsPermissions = (notHeld: string[], whose: 'caller' | 'owner' | 'target'): TesseraError => {
  const who = whose === 'caller' ? 'you do not hold' : whose === 'owner' ? "the key's owner does not hold" : 'the user holds and you do not';
  return new PermissionError('grant_exceeds_permissions', `Cannot grant permissions ${who}: ${notHeld.join(', ')}.`, { details: { notHeld, whose }, plugin });
};

export const tooManyAuthFailures = (retryAfterSeconds: number): TesseraError =>
  new TesseraError('too_many_auth_failures', 429, `Too many failed API key attempts from this address; retry in ${retryAfterSeconds} s.`, {
    details: { retryAfterSeconds },
    headers: { 'retry-after': String(retryAfterSeconds) },
    plugin,
  });

export const invalidTenant = (value: string): TesseraError =>
  new InputError('invalid_tenant', `"${value.slice(0, 80)}" is not a tenant id: use 1-63 of a-z, 0-9, "_" and "-", starting with a letter or digit.`, {
    plugin,
  });

export const unknownRole = (roles: string[]): TesseraError =>
  new InputError('unknown_role', `Unknown role: ${roles.join(', ')}.`, { details: { roles }, plugin });

export const unknownPermission = (permissions: string[]): TesseraError =>
  new InputError('unknown_permission', `Unknown permission: ${permissions.join(', ')}.`, { details: { permissions }, plugin });

export const invalidExpiry = (): TesseraError => new InputError('invalid_expiry', '"expiresAt" must be in the future.', { plugin });

export const invalidCursor = (): TesseraError => new InputError('invalid_cursor', 'The cursor is not valid for this list; start again without it.', { plugin });

export const userNotFound = (which: string): TesseraError => new NotFoundError('user_not_found', `No user "${which}" in this tenant.`, { plugin });

export const keyNotFound = (id: string): TesseraError => new NotFoundError('key_not_found', `No API key "${id}".`, { plugin });

export const userExists = (name: string): TesseraError => new ConflictError('user_exists', `A user named "${name}" already exists in this tenant.`, { plugin });

export const roleExists = (name: string): TesseraError => new ConflictError('role_exists', `A role named "${name}" already exists.`, { plugin });
