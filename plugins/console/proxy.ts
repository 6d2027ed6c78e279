import { Readable } from 'node:stream';
import { getRequestIP } from 'h3';
import type { PluginContext, RouteRequest } from 'tessera-runtime/plugin';
import { errors } from './errors.js';

/** Where the fleet proxy is mounted: `/api/fleet/{listener}/{path of that listener}`. */
export const proxyPrefix = '/api/fleet/';

/** Request headers the target needs; the rest (Origin, Host, hop-by-hop headers) stay here. */
const forwardedRequestHeaders = [
  'accept',
  'accept-language',
  'authorization',
  'content-type',
  'cookie',
  'if-modified-since',
  'if-none-match',
  'last-event-id',
  'x-api-key',
  'x-csrf-token',
  'x-tenant',
];

/** Response headers the browser needs; `content-length` and `content-encoding` are recomputed. */
const returnedResponseHeaders = [
  'allow',
  'cache-control',
  'content-disposition',
  'content-type',
  'etag',
  'last-modified',
  'location',
  'retry-after',
  'x-request-id',
];

type Listener = PluginContext['app']['listeners'][number];

/** The address to connect to: a wildcard bind is reached on loopback. */
function targetBase(listener: Listener): string {
  if (listener.host === '0.0.0.0') return `http://127.0.0.1:${listener.port}`;
  if (listener.host === '::') return `http://[::1]:${listener.port}`;
  return listener.url;
}

/**
 * Forwards a request of the UI to another listener of the same deployment, so the browser talks to
 * one origin and no CORS is needed. It is not an open proxy: the target is a listener name looked
 * up in the running deployment, never a host or URL from the request. Credentials (the session
 * cookie with its CSRF header, or an API key) travel on and the target authenticates them again,
 * with its own permissions.
 */
export async function forward(ctx: PluginContext<any>, request: RouteRequest<unknown, unknown>): Promise<Response> {
  const pathname = request.url.pathname;
  const after = pathname.slice(proxyPrefix.length);
  const slash = after.indexOf('/');
  const name = decodeURIComponent(slash === -1 ? after : after.slice(0, slash));
  const rest = slash === -1 ? '/' : after.slice(slash);
  const listeners = ctx.app.listeners;
  const target = listeners.find((l) => l.name === name);
  if (target === undefined) throw errors.listener_not_found({ listener: name });
  if (target.name === request.listener) {
    throw errors.proxy_target_refused({ listener: name, reason: 'it is the listener this request came in on; call the path directly.' });
  }
  const own = listeners.find((l) => l.name === request.listener);
  if (own?.auth && !target.auth) {
    throw errors.proxy_target_refused({
      listener: name,
      reason: 'it has auth off while this listener has auth on, so forwarding would let any signed-in user past its permissions.',
    });
  }

  const headers = new Headers();
  for (const h of forwardedRequestHeaders) {
    const v = request.headers.get(h);
    if (v !== null) headers.set(h, v);
  }
  const client = getRequestIP(request.event);
  const chain = request.headers.get('x-forwarded-for');
  if (client) headers.set('x-forwarded-for', chain ? `${chain}, ${client}` : client);
  headers.set('x-request-id', request.requestId);

  const method = request.method;
  const hasBody = method !== 'GET' && method !== 'HEAD' && (request.headers.has('content-length') || request.headers.has('transfer-encoding'));
  let upstream: Response;
  try {
    upstream = await fetch(`${targetBase(target)}${rest}${request.url.search}`, {
      method,
      headers,
      redirect: 'manual',
      signal: request.signal,
      ...(hasBody ? { body: Readable.toWeb(Readable.from(request.stream())) as ReadableStream, duplex: 'half' } : {}),
    } as RequestInit);
  } catch (err) {
    if (request.signal.aborted) throw err;
    throw errors.proxy_unreachable({
      listener: name,
      reason: (err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message,
    });
  }

  const out = new Headers();
  for (const h of returnedResponseHeaders) {
    const v = upstream.headers.get(h);
    if (v !== null) out.set(h, v);
  }
  // A redirect to a path of the target stays inside the proxy.
  const location = out.get('location');
  if (location?.startsWith('/') && !location.startsWith('//')) out.set('location', `${proxyPrefix}${encodeURIComponent(name)}${location}`);
  for (const cookie of upstream.headers.getSetCookie()) out.append('set-cookie', cookie);
  return new Response(upstream.body, { status: upstream.status, headers: out });
}
