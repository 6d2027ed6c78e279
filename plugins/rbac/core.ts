import { clientAddress, parseTrustedProxies } from './client-address.js';
import type { Database } from 'lmdb';
import type { Authenticator, PermissionInfo, PluginContext } from 'tessera-runtime/plugin';
import { PasswordStore } from './passwords.js';
import { SessionStore, type SessionRecord } from './sessions.js';
import { AuditLog, type AuditEntry } from './audit.js';
import { createAuthenticator } from './authenticator.js';
import { BruteForceGuard } from './brute-force.js';
import { KeyVerifier } from './key-verifier.js';
import { KeyStore, type KeyRecord } from './keys.js';
import type { RbacOptions } from './options.js';
import { PermissionSet } from './permissions.js';
import { Roles, type CustomRoleRecord } from './roles.js';
import { UserStore, type UserRecord } from './users.js';

/** Version of the data this plugin writes (recorded with ctx.store.format in setup). */
export const RBAC_DATA_FORMAT = 1;

/** Everything the routes, the authenticator and bootstrap share: built once in setup. */
export interface RbacCore {
  options: RbacOptions;
  permissions: PermissionSet;
  roles: Roles;
  users: UserStore;
  keys: KeyStore;
  verifier: KeyVerifier;
  guard: BruteForceGuard;
  audit: AuditLog;
  sessions: SessionStore;
  passwords: PasswordStore;
  /** The client's address as the brute-force guard and the audit log see it (trusted proxies applied). */
  addressOf(peer: string | undefined, headers: Headers): string | undefined;
  meta: Database<unknown, string>;
  authenticate: Authenticator;
  /** Runs `fn` in one write transaction of the store. */
  transaction<T>(fn: () => T): Promise<T>;
}

/**
 * Named databases (format 1): `users` [tenant, userId], `userNames` [tenant, name] -> userId,
 * `roles` [tenant, name], `keys` keyId, `keysByTenant` [tenant, keyId] -> userId,
 * `keyUsage` keyId -> ms, `audit` [tenant or "", seq], `auditOrder` seq -> tenant or "",
 * `sessions` sha256(session id) -> SessionRecord, `passwords` [tenant, userId] -> scrypt hash, `meta`.
 */
export function createCore(ctx: PluginContext<RbacOptions>): RbacCore {
  const options = ctx.config;
  // Built from the deployment's declarations, which are complete once every plugin's setup has run:
  // rebuilt whenever the runtime hands over a new list (it does not change while serving).
  let declared: readonly PermissionInfo[] | undefined;
  let permissionSet: PermissionSet | undefined;
  const permissions = (): PermissionSet => {
    const current = ctx.auth.permissions();
    if (current !== declared || !permissionSet) {
      declared = current;
      permissionSet = new PermissionSet(current, options.extraPermissions);
    }
    return permissionSet;
  };
  const roles = new Roles(permissions, ctx.store.db<CustomRoleRecord, [string, string]>('roles'));
  const users = new UserStore({
    users: ctx.store.db<UserRecord, [string, string]>('users'),
    names: ctx.store.db<string, [string, string]>('userNames'),
  });
  const keys = new KeyStore({
    keys: ctx.store.db<KeyRecord, string>('keys'),
    byTenant: ctx.store.db<string, [string, string]>('keysByTenant'),
    usage: ctx.store.db<number, string>('keyUsage'),
  });
  const meta = ctx.store.db<unknown, string>('meta');
  const audit = new AuditLog(ctx.store.db<AuditEntry, [string, number]>('audit'), meta, ctx.store.db<string, number>('auditOrder'), {
    retentionDays: options.auditRetentionDays,
    maxEntries: options.auditMaxEntries,
  });
  ctx.metrics.gauge({
    name: 'tessera_rbac_audit_entries',
    help: 'Entries in the rbac audit log (bounded by auditMaxEntries and auditRetentionDays).',
    collect() {
      this.set(audit.size());
    },
  });
  const sessions = new SessionStore(ctx.store.db<SessionRecord, string>('sessions'), {
    ttlSeconds: options.sessions.ttlSeconds,
    idleSeconds: options.sessions.idleSeconds,
  });
  const passwords = new PasswordStore(ctx.store.db<string, [string, string]>('passwords'));
  const verifier = new KeyVerifier(keys);
  const trustedProxies = parseTrustedProxies(options.trustedProxies);
  const guard = new BruteForceGuard(options.bruteForce);
  const authenticate = createAuthenticator({
    keys,
    verifier,
    users,
    roles,
    get permissions() {
      return permissions();
    },
    guard,
    audit,
    metrics: ctx.metrics,
    trustedProxies,
    sessions,
  });
  return {
    options,
    get permissions() {
      return permissions();
    },
    roles,
    users,
    keys,
    verifier,
    guard,
    audit,
    sessions,
    passwords,
    addressOf: (peer, headers) => clientAddress(peer, headers, trustedProxies),
    meta,
    authenticate,
    transaction: (fn) => ctx.store.transaction(fn),
  };
}
