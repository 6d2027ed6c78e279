import { clientAddress, type TrustedProxies } from './client-address.js';
import { type Authenticator, type AuthRequest, type Principal, type PluginMetrics, isTesseraError } from 'tessera-runtime/plugin';
import type { AuditActor, AuditLog } from './audit.js';
import type { BruteForceGuard } from './brute-force.js';
import { csrfTokenInvalid, invalidApiKey, missingApiKey, permissionDenied, sessionExpired, sessionInvalid } from './errors.js';
import type { KeyVerifier } from './key-verifier.js';
import { keyState, type KeyRecord, type KeyStore } from './keys.js';
import { csrfMatches, safeMethods, sessionIdFrom, type SessionStore } from './sessions.js';
import { looksLikeToken, readToken, rulesWithin, signatureValid, type SearchRules } from './tenant-tokens.js';
import type { PermissionSet } from './permissions.js';
import type { Roles } from './roles.js';
import { effectiveTenant } from './tenants.js';
import type { UserRecord, UserStore } from './users.js';

/** What handlers receive as `request.principal` on routes this plugin authenticates. */
export interface RbacPrincipal extends Principal {
  /** The key's id; the user's id for a browser signed in with a user name and password. */
  id: string;
  /** `user` for a browser session opened with a password: it holds the user's role permissions. */
  kind: 'key' | 'user';
  /** The tenant the request acts in: the key's own, or the one named by `X-Tenant` for cross-tenant keys. */
  tenant: string;
  /** The key's own tenant. */
  homeTenant: string;
  /** Effective: the key's scopes intersected with its user's current role permissions. */
  permissions: string[];
  userId: string;
  userName: string;
  roles: string[];
  /** `null` for a password session. */
  keyName: string | null;
  /** Search indexes the key may reach (names, `prefix*`, or `*`); search hides the others. */
  indexes: string[];
  /** A tenant token's rules: index pattern -> filter ANDed with each search (null: none). */
  searchRules?: SearchRules;
}

export interface AuthenticatorDeps {
  keys: KeyStore;
  verifier: KeyVerifier;
  users: UserStore;
  roles: Roles;
  permissions: PermissionSet;
  guard: BruteForceGuard;
  audit: AuditLog;
  metrics: PluginMetrics;
  trustedProxies: TrustedProxies;
  sessions: SessionStore;
}

/** `x-api-key` (seed 001) first, then `Authorization: Bearer` (seed 002). */
export function presentedKey(headers: Headers): string | undefined {
  const direct = headers.get('x-api-key')?.trim();
  if (direct) return direct;
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(headers.get('authorization') ?? '')?.[1];
  return bearer || undefined;
}

/** A key's permissions right now: its scopes, as far as its user's current roles still grant them. */
export function effectivePermissions(deps: Pick<AuthenticatorDeps, 'roles' | 'permissions'>, key: KeyRecord, user: UserRecord): string[] {
  const granted = deps.roles.permissionsOf(key.tenant, user.roles);
  return deps.permissions.normalise(key.scopes.filter((p) => granted.has(p)));
}

export function actorOf(principal: RbacPrincipal): AuditActor {
  return { userId: principal.userId, userName: principal.userName, keyId: principal.kind === 'key' ? principal.id : null };
}

/**
 * The runtime calls this for every non-public route on a listener with auth on. Order: address
 * block, credential present, key verified (constant time) and its user enabled, tenant, permission.
 */
export function createAuthenticator(deps: AuthenticatorDeps): Authenticator {
  const outcomes = deps.metrics.counter({
    name: 'tessera_rbac_auth_total',
    help: 'Credential checks by outcome: ok, missing, invalid, blocked, session_invalid, csrf, tenant_mismatch, permission_denied.',
    labelNames: ['outcome'],
  });

  /** The parent key of a well-signed, unexpired token whose rules stay within the key's indexes. */
  function tokenParent(claims: ReturnType<typeof readToken>, token: string, now: number): { ok: boolean; record?: KeyRecord } {
    const record = claims ? deps.keys.get(claims.kid) : undefined;
    if (!claims || !record) return { ok: false };
    const ok =
      keyState(record, now) === 'active' &&
      signatureValid(token, record.hash) &&
      (claims.exp === undefined || claims.exp * 1000 > now) &&
      rulesWithin(claims.rules, record.indexes ?? ['*']);
    return { ok, record };
  }

  return async function authenticate(request: AuthRequest): Promise<RbacPrincipal> {
    const ip = clientAddress(request.ip, request.headers, deps.trustedProxies);
    const address = ip ?? 'unknown';
    const where = { ip: ip ?? null, requestId: request.requestId };
    const asked = {
      method: request.method,
      path: request.path,
      permission: request.permission,
      ...(request.route !== undefined ? { route: request.route } : {}),
    };
    try {
      deps.guard.check(address);
    } catch (err) {
      outcomes.inc({ outcome: 'blocked' });
      throw err;
    }

    const presented = presentedKey(request.headers);
    const sessionId = presented === undefined ? sessionIdFrom(request.headers) : undefined;
    if (presented === undefined && sessionId === undefined) {
      outcomes.inc({ outcome: 'missing' });
      throw missingApiKey();
    }

    const now = Date.now();
    let key: KeyRecord | undefined;
    let user: UserRecord;
    let rules: SearchRules | undefined;
    if (presented !== undefined) {
      // A tenant token (a JWT signed with the parent key's hash), or an API key.
      const claims = looksLikeToken(presented) ? readToken(presented) : undefined;
      const verified: { ok: boolean; record?: KeyRecord } = looksLikeToken(presented)
        ? tokenParent(claims, presented, now)
        : deps.verifier.verify(presented, now);
      const owner = verified.ok && verified.record ? deps.users.get(verified.record.tenant, verified.record.userId) : undefined;
      if (!verified.ok || !verified.record || owner === undefined || owner.disabled) {
        outcomes.inc({ outcome: 'invalid' });
        const blockSeconds = deps.guard.fail(address);
        const record = verified.record;
        await deps.audit.recordDenied({
          tenant: record?.tenant ?? null,
          action: 'auth.failed',
          actor: null,
          target: record ? { type: 'key', id: record.id } : null,
          ...where,
          details: asked,
        });
        if (blockSeconds > 0) await deps.audit.append({ tenant: null, action: 'auth.blocked', actor: null, ...where, details: { blockSeconds } });
        throw invalidApiKey();
      }
      key = verified.record;
      user = owner;
      rules = claims?.rules;
    } else {
      // A browser session: its user must be enabled, and the key it was opened with (if it was
      // opened with a key rather than a password) still valid.
      const found = deps.sessions.lookup(sessionId!, now);
      const keyId = found.ok ? found.record.keyId : null;
      const record = keyId !== null ? deps.keys.get(keyId) : undefined;
      const owner = found.ok ? deps.users.get(found.record.tenant, found.record.userId) : undefined;
      const keyValid = keyId === null || (record !== undefined && keyState(record, now) === 'active' && record.userId === owner?.id);
      if (!found.ok || !keyValid || !owner || owner.disabled) {
        if (found.ok) await deps.sessions.remove(sessionId!);
        outcomes.inc({ outcome: 'session_invalid' });
        throw found.ok || found.reason === 'unknown' ? sessionInvalid() : sessionExpired();
      }
      // The cookie rides along with any request the browser makes; only the page that signed in
      // knows the token (double submit), so a state change must carry it.
      if (!safeMethods.has(request.method) && !csrfMatches(found.record, request.headers.get('x-csrf-token'))) {
        outcomes.inc({ outcome: 'csrf' });
        throw csrfTokenInvalid();
      }
      key = record;
      user = owner;
    }

    // A token searches, and nothing else, whatever its parent key may do. A password session holds
    // what the user's roles grant.
    const granted = key ? effectivePermissions(deps, key, user) : deps.permissions.normalise([...deps.roles.permissionsOf(user.tenant, user.roles)]);
    const permissions = rules ? granted.filter((p) => p === 'search:read') : granted;
    const held = new Set(permissions);
    const principal: RbacPrincipal = {
      id: key?.id ?? user.id,
      kind: key ? 'key' : 'user',
      tenant: user.tenant,
      homeTenant: user.tenant,
      permissions,
      userId: user.id,
      userName: user.name,
      roles: user.roles,
      keyName: key?.name ?? null,
      indexes: rules ? Object.keys(rules) : (key?.indexes ?? ['*']),
      ...(rules ? { searchRules: rules } : {}),
    };
    try {
      principal.tenant = effectiveTenant(request.headers, user.tenant, held);
    } catch (err) {
      if (isTesseraError(err) && err.code === 'tenant_mismatch') {
        outcomes.inc({ outcome: 'tenant_mismatch' });
        await deps.audit.recordDenied({
          tenant: user.tenant,
          action: 'auth.denied',
          actor: actorOf(principal),
          ...where,
          details: { ...asked, reason: 'tenant_mismatch', ...(err.details as object) },
        });
      }
      throw err;
    }
    if (request.permission !== 'authenticated' && !held.has(request.permission)) {
      outcomes.inc({ outcome: 'permission_denied' });
      await deps.audit.recordDenied({
        tenant: principal.tenant,
        action: 'auth.denied',
        actor: actorOf(principal),
        ...where,
        details: { ...asked, reason: 'permission_denied' },
      });
      throw permissionDenied(request.permission);
    }
    outcomes.inc({ outcome: 'ok' });
    if (key) deps.keys.touch(key.id, now);
    return principal;
  };
}
