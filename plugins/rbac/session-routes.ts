import { getRequestIP } from 'h3';
import { InputError, PermissionError, reply, type RouteRequest } from 'tessera-runtime/plugin';
import type { RbacCore } from './core.js';
import { principalOf, tags, type Routes } from './route-helpers.js';
import { invalidCredentials } from './errors.js';
import { maxPasswordLength } from './passwords.js';
import { sessionIdFrom } from './sessions.js';
import { tenantIdPattern } from './tenants.js';
import { userNamePattern } from './users.js';

const plugin = 'rbac';

/** Whether the cookie gets `Secure`: per the `sessions.secureCookie` option. */
function secure(core: RbacCore, request: RouteRequest<unknown, unknown>): boolean {
  const mode = core.options.sessions.secureCookie;
  return mode === 'always' || (mode === 'auto' && request.event.url.protocol === 'https:');
}

/**
 * A page of another site must not sign a browser in (login CSRF: the victim would then act under
 * the attacker's account). The runtime says whether the Origin, when sent, is this listener's own
 * or one its manifest lists in `cors.origins` (a UI hosted elsewhere by the operator).
 */
function checkOrigin(request: RouteRequest<unknown, unknown>): void {
  if (request.originTrusted) return;
  const origin = request.headers.get('origin');
  throw new PermissionError(
    'origin_not_allowed',
    `Signing in from origin ${JSON.stringify(origin)} is refused: only pages of this server, or origins listed in the listener's "cors.origins", may open a session.`,
    { details: { origin }, plugin },
  );
}

type Credentials = ({ apiKey: string } | { username: string; password: string; tenant: string | undefined }) & { redirect?: string; form: boolean };

const invalid = (path: string, message: string): InputError =>
  new InputError('validation_failed', `${path}: ${message}.`, { details: { issues: [{ path, message }] }, plugin });

/**
 * `{apiKey}` or `{username, password, tenant?}`, each with an optional `redirect`, from JSON or a
 * form (`application/x-www-form-urlencoded`).
 */
async function credentials(request: RouteRequest<unknown, unknown>): Promise<Credentials> {
  const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  const text = await request.text();
  let fields: Record<string, unknown>;
  const form = type === 'application/x-www-form-urlencoded';
  if (form) fields = Object.fromEntries(new URLSearchParams(text));
  else {
    try {
      fields = JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw new InputError('invalid_json', 'The body is not JSON: send {"apiKey": "tsk_..."} or {"username": "...", "password": "..."}.', { plugin });
    }
    if (fields === null || typeof fields !== 'object' || Array.isArray(fields)) fields = {};
  }
  const redirect = fields.redirect;
  // Only a path of this server: an open redirect would let a link send a signed-in user anywhere.
  if (redirect !== undefined && (typeof redirect !== 'string' || !/^\/(?![/\\])[\x21-\x7e]*$/.test(redirect))) {
    throw invalid('redirect', 'a path of this server such as "/ui/" is required');
  }
  const rest = { ...(typeof redirect === 'string' ? { redirect } : {}), form };
  if (fields.apiKey === undefined && (fields.username !== undefined || fields.password !== undefined)) {
    const { username, password, tenant } = fields;
    if (typeof username !== 'string' || !userNamePattern.test(username)) throw invalid('username', 'a user name is required');
    if (typeof password !== 'string' || password.length === 0 || password.length > maxPasswordLength) throw invalid('password', 'a password is required');
    if (tenant !== undefined && tenant !== '' && (typeof tenant !== 'string' || !tenantIdPattern.test(tenant)))
      throw invalid('tenant', 'a tenant id is required');
    return { username, password, tenant: typeof tenant === 'string' && tenant !== '' ? tenant : undefined, ...rest };
  }
  const apiKey = fields.apiKey;
  if (typeof apiKey !== 'string' || apiKey.length === 0 || apiKey.length > 512) {
    throw invalid('apiKey', 'a key such as "tsk_..." (or a username and password) is required');
  }
  return { apiKey, ...rest };
}

/** The user named in `credentials`, when the password is theirs and they are enabled; audited and throttled otherwise. */
async function passwordUser(
  core: RbacCore,
  request: RouteRequest<unknown, unknown>,
  credentials: { username: string; password: string; tenant: string | undefined },
) {
  const ip = core.addressOf(getRequestIP(request.event), request.headers);
  const address = ip ?? 'unknown';
  core.guard.check(address);
  const tenant = credentials.tenant ?? core.options.defaultTenant;
  const user = core.users.byName(tenant, credentials.username);
  const matches = await core.passwords.verify(tenant, user?.id, credentials.password);
  if (matches && user && !user.disabled) return user;
  const blockSeconds = core.guard.fail(address);
  const where = { ip: ip ?? null, requestId: request.requestId };
  await core.audit.recordDenied({
    tenant: user ? tenant : null,
    action: 'auth.failed',
    actor: null,
    target: user ? { type: 'user', id: user.id } : null,
    ...where,
    details: { method: 'POST', path: request.path, permission: 'authenticated', route: '/hub/session', reason: 'invalid_credentials' },
  });
  if (blockSeconds > 0) await core.audit.append({ tenant: null, action: 'auth.blocked', actor: null, ...where, details: { blockSeconds } });
  throw invalidCredentials();
}

export function registerSessionRoutes(routes: Routes, core: RbacCore): void {
  routes.add({
    method: 'POST',
    path: '/hub/session',
    // Signing in is how a browser gets a credential: the key or the password comes in the body.
    permission: 'public',
    accepts: ['application/json', 'application/x-www-form-urlencoded'],
    summary: 'Sign a browser in with an API key or a user name and password: sets the HttpOnly session cookie, returns the CSRF token',
    tags,
    handler: async (request) => {
      checkOrigin(request);
      const given = await credentials(request);
      let opened: { keyId: string | null; tenant: string; userId: string; userName: string };
      if ('apiKey' in given) {
        const headers = new Headers({ 'x-api-key': given.apiKey });
        const forwarded = request.headers.get('x-forwarded-for');
        if (forwarded !== null) headers.set('x-forwarded-for', forwarded);
        // The same checks as any request with the key: throttling of failures, audit, disabled users.
        const principal = await core.authenticate({
          headers,
          method: 'POST',
          path: request.path,
          route: '/hub/session',
          permission: 'authenticated',
          listener: request.listener,
          ip: getRequestIP(request.event),
          requestId: request.requestId,
        });
        const key = core.keys.get(principal.id as string)!;
        opened = { keyId: key.id, tenant: key.tenant, userId: key.userId, userName: principal.userName as string };
      } else {
        const user = await passwordUser(core, request, given);
        opened = { keyId: null, tenant: user.tenant, userId: user.id, userName: user.name };
      }
      const { id, record } = await core.sessions.create({ id: opened.keyId, tenant: opened.tenant, userId: opened.userId });
      const cookie = core.sessions.cookie(id, secure(core, request));
      const body = {
        session: { expiresAt: record.expiresAt, idleTimeoutSeconds: core.sessions.options.idleSeconds, csrfToken: record.csrf },
        tenant: opened.tenant,
        user: { id: opened.userId, name: opened.userName },
        method: opened.keyId === null ? 'password' : 'apiKey',
      };
      if (given.form && given.redirect !== undefined)
        return reply(303, { ok: true, ...body }, { 'set-cookie': cookie, location: given.redirect, 'cache-control': 'no-store' });
      return reply(200, body, { 'set-cookie': cookie, 'cache-control': 'no-store' });
    },
  });

  routes.add({
    method: 'GET',
    path: '/hub/session',
    permission: 'authenticated',
    authenticate: 'always',
    throttle: 'light',
    summary: "The browser's session: expiry and CSRF token (null when the request used an API key)",
    tags,
    handler: async (request) => {
      const principal = principalOf(request);
      const sid = request.headers.get('x-api-key') === null ? sessionIdFrom(request.headers) : undefined;
      const found = sid === undefined ? undefined : core.sessions.lookup(sid);
      const session = found?.ok
        ? { expiresAt: found.record.expiresAt, idleTimeoutSeconds: core.sessions.options.idleSeconds, csrfToken: found.record.csrf }
        : null;
      return reply(200, { session, tenant: principal.tenant, permissions: principal.permissions }, { 'cache-control': 'no-store' });
    },
  });

  routes.add({
    method: 'DELETE',
    path: '/hub/session',
    permission: 'authenticated',
    authenticate: 'always',
    summary: 'Sign out: ends the session and clears its cookie (needs the CSRF token)',
    tags,
    handler: async (request) => {
      principalOf(request);
      const sid = sessionIdFrom(request.headers);
      if (sid !== undefined) await core.sessions.remove(sid);
      return reply(200, { signedOut: sid !== undefined }, { 'set-cookie': core.sessions.clearCookie(secure(core, request)), 'cache-control': 'no-store' });
    },
  });
}
