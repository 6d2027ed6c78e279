import { getRequestIP } from 'h3';
import { InputError, PermissionError, reply, type RouteRequest } from 'tessera/plugin';
import type { RbacCore } from './core.js';
import { principalOf, tags, type Routes } from './route-helpers.js';
import { sessionIdFrom } from './sessions.js';

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

/** `{apiKey, redirect?}` from JSON or a form (`application/x-www-form-urlencoded`). */
async function credentials(request: RouteRequest<unknown, unknown>): Promise<{ apiKey: string; redirect?: string; form: boolean }> {
  const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  const text = await request.text();
  let fields: Record<string, unknown>;
  const form = type === 'application/x-www-form-urlencoded';
  if (form) fields = Object.fromEntries(new URLSearchParams(text));
  else {
    try {
      fields = JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw new InputError('invalid_json', 'The body is not JSON: send {"apiKey": "tsk_..."}.', { plugin });
    }
  }
  const apiKey = fields?.apiKey;
  if (typeof apiKey !== 'string' || apiKey.length === 0 || apiKey.length > 512) {
    throw new InputError('validation_failed', 'apiKey: a key such as "tsk_..." is required.', {
      details: { issues: [{ path: 'apiKey', message: 'required' }] },
      plugin,
    });
  }
  const redirect = fields.redirect;
  // Only a path of this server: an open redirect would let a link send a signed-in user anywhere.
  if (redirect !== undefined && (typeof redirect !== 'string' || !/^\/(?![/\\])[\x21-\x7e]*$/.test(redirect))) {
    throw new InputError('validation_failed', 'redirect: a path of this server such as "/ui/" is required.', {
      details: { issues: [{ path: 'redirect', message: 'a path starting with one "/"' }] },
      plugin,
    });
  }
  return { apiKey, ...(typeof redirect === 'string' ? { redirect } : {}), form };
}

export function registerSessionRoutes(routes: Routes, core: RbacCore): void {
  routes.add({
    method: 'POST',
    path: '/hub/session',
    // Signing in is how a browser gets a credential: the key comes in the body.
    permission: 'public',
    accepts: ['application/json', 'application/x-www-form-urlencoded'],
    summary: 'Sign a browser in with an API key: sets the HttpOnly session cookie, returns the CSRF token',
    tags,
    handler: async (request) => {
      checkOrigin(request);
      const { apiKey, redirect, form } = await credentials(request);
      const headers = new Headers({ 'x-api-key': apiKey });
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
      const { id, record } = await core.sessions.create({ id: key.id, tenant: key.tenant, userId: key.userId });
      const cookie = core.sessions.cookie(id, secure(core, request));
      const body = {
        session: { expiresAt: record.expiresAt, idleTimeoutSeconds: core.sessions.options.idleSeconds, csrfToken: record.csrf },
        tenant: key.tenant,
        user: { id: key.userId },
      };
      if (form && redirect !== undefined) return reply(303, { ok: true, ...body }, { 'set-cookie': cookie, location: redirect, 'cache-control': 'no-store' });
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
