import { createServer, maxHeaderSize, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { H3Core, HTTPError, getRequestIP, type H3, type H3Config, type H3Event } from 'h3';
import { toNodeHandler } from 'h3/node';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { isJsonMediaType, mediaType, parseJson, readBodyText, UnsupportedMediaTypeError } from './body.js';
import { TesseraError, isTesseraError } from './errors.js';
import type { ResolvedListener } from './manifest.js';
import type { ThrottleTier, ThrottleTierConfig } from './manifest-schema.js';
import type { RuntimeMetrics } from './metrics.js';
import type { Authenticator, Principal, RouteDefinition, RouteRequest } from './plugin-types.js';
import { Reply, withOk } from './reply.js';
import { HttpRouteRequest } from './route-request.js';
import { RouteTable } from './route-table.js';
import { serveFromMount, underMount, type StaticMount } from './static-files.js';
import { corsAllows, corsHeaders, corsPreflight, listedOrigins, sameOrigin } from './cors.js';
import { newRequestId } from './request-id.js';
import { RequestLog } from './request-log.js';
import { RequestIdResponse } from './node-response.js';
import type { Series } from './request-metrics.js';
import { Throttle, type ClientSignal } from './throttle.js';
import { validate } from './validation.js';

/** A route as one listener serves it. */
export interface MountedRoute {
  plugin: string;
  definition: RouteDefinition<any, any>;
  tier: ThrottleTier;
  bodyLimit: number;
  /** The metrics series this route recorded into last (same method and status: no lookup). */
  series?: Series;
}

export class ListenerError extends TesseraError {
  constructor(code: string, message: string, cause?: unknown) {
    super(code, 500, message, { cause });
    this.name = 'ListenerError';
  }
}

class ShuttingDownError extends TesseraError {
  constructor() {
    super('shutting_down', 503, 'The server is shutting down and accepts no new requests.', { headers: { connection: 'close' } });
  }
}

export interface ListenerDeps {
  config: ResolvedListener;
  throttle: Record<ThrottleTier, ThrottleTierConfig>;
  bodyLimit: number;
  log: Logger;
  metrics: RuntimeMetrics;
  /** Looked up per request, so the auth provider can register during setup. */
  authenticator: () => Authenticator | undefined;
}

const requestIdPattern = /^[\w.:@/+=-]{1,128}$/;

/**
 * One port. It serves the routes of its own plugins only, runs every request through the same
 * pipeline (request id, drain check, route lookup, auth, throttle, body, handler, error shape,
 * metrics, one log line), and drains in-flight requests on shutdown.
 */
export class HttpListener {
  readonly name: string;
  readonly config: ResolvedListener;
  readonly routes = new RouteTable<MountedRoute>();
  /** Plugins' static file mounts, longest prefix first. */
  readonly statics: StaticMount[] = [];
  readonly throttle: Throttle;
  private readonly deps: ListenerDeps;
  private server?: Server;
  private draining = false;
  private readonly drain = new AbortController();
  private inFlight = 0;
  private idleWaiters: Array<() => void> = [];
  private readonly requestLog: RequestLog;
  private readonly onResponseClosed = (): void => this.finished();
  private readonly listedOrigins: readonly string[];
  private lastAllowedHost: string | undefined;

  constructor(deps: ListenerDeps) {
    this.deps = deps;
    this.config = deps.config;
    this.name = deps.config.name;
    this.throttle = new Throttle(deps.throttle);
    this.requestLog = new RequestLog(deps.log, this.name);
    this.listedOrigins = listedOrigins(deps.config.cors);
  }

  mount(plugin: string, definition: RouteDefinition<any, any>): MountedRoute {
    const mounted: MountedRoute = {
      plugin,
      definition,
      tier: definition.throttle ?? 'standard',
      bodyLimit: definition.bodyLimit ?? this.deps.bodyLimit,
    };
    this.routes.add(definition.method, definition.path, mounted);
    return mounted;
  }

  get address(): { host: string; port: number; url: string } {
    const info = this.server?.address() as AddressInfo | null | undefined;
    const port = info?.port ?? this.config.port;
    const host = this.config.host;
    const urlHost = host.includes(':') ? `[${host}]` : host;
    return { host, port, url: `http://${urlHost}:${port}` };
  }

  get activeRequests(): number {
    return this.inFlight;
  }

  private h3?: ListenerApp;

  /** The h3 app that runs every request through `handle`, made once per listener. */
  private h3App(): ListenerApp {
    this.h3 ??= new ListenerApp(
      {
        // Malformed percent-encoding reaches our pipeline (request id, log, metrics) and is answered
        // there; params are decoded defensively.
        allowMalformedURL: true,
        // Only reached by failures outside our pipeline; same body shape.
        onError: (error, event) => this.errorBody(event, error, newRequestId()),
      },
      (event) => this.handle(event),
    );
    return this.h3;
  }

  /**
   * Serve one request through this listener's whole pipeline (host check, auth, throttle,
   * validation, error body, metrics, log line) without a socket: tessera-runtime/testing's `fetch`. A
   * request gets the headers an HTTP client would send (Host, and Content-Length for a body, which
   * is read whole first), and its client address is loopback unless `ip` is set on it.
   */
  async fetch(request: Request): Promise<Response> {
    let req = request as Request & { ip?: string };
    const needsLength = req.body !== null && !req.headers.has('content-length') && !req.headers.has('transfer-encoding');
    if (!req.headers.has('host') || needsLength) {
      const headers = new Headers(req.headers);
      if (!headers.has('host')) headers.set('host', new URL(req.url).host);
      let body: ArrayBuffer | ReadableStream | null = req.body;
      if (needsLength) {
        body = await req.arrayBuffer();
        headers.set('content-length', String(body.byteLength));
      }
      req = new Request(req.url, { method: req.method, headers, body, signal: req.signal, ...(body instanceof ReadableStream ? { duplex: 'half' } : {}) });
    }
    if (req.ip === undefined) Object.defineProperty(req, 'ip', { value: '127.0.0.1', enumerable: true });
    return await this.h3App().fetch(req);
  }

  async listen(): Promise<void> {
    // toNodeHandler uses only the app's `fetch`, which H3Core has; its type asks for the routed H3.
    const server = createServer({ ServerResponse: RequestIdResponse }, toNodeHandler(this.h3App() as unknown as H3));
    // Requests Node refuses before any handler runs (headers too large, unparseable request line):
    // the answer still has our JSON error body, never an empty one.
    server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
      if (!socket.writable || err.code === 'ECONNRESET') {
        socket.destroy();
        return;
      }
      const [status, code, message] =
        err.code === 'HPE_HEADER_OVERFLOW'
          ? [431, 'headers_too_large', `The request headers are larger than this server accepts (${maxHeaderSize} bytes in all).`]
          : err.code === 'HPE_HEADERS_TIMEOUT' || err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
            ? [408, 'request_timeout', 'The request was not received in time.']
            : [400, 'invalid_request', 'The request could not be parsed as HTTP/1.1.'];
      const body = JSON.stringify({ ok: false, error: { code, message } });
      const reason = status === 431 ? 'Request Header Fields Too Large' : status === 408 ? 'Request Timeout' : 'Bad Request';
      socket.end(
        `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
      );
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      const onError = (err: NodeJS.ErrnoException): void => {
        server.off('listening', onListening);
        const where = `${this.config.host}:${this.config.port}`;
        if (err.code === 'EADDRINUSE') {
          reject(
            new ListenerError(
              'listener_port_in_use',
              `Listener "${this.name}" cannot bind ${where}: the port is already in use. Stop the other process or change "port" in the manifest.`,
              err,
            ),
          );
        } else {
          reject(new ListenerError('listener_failed', `Listener "${this.name}" cannot bind ${where}: ${err.message}`, err));
        }
      };
      const onListening = (): void => {
        server.off('error', onError);
        resolve();
      };
      server.once('error', onError);
      server.once('listening', onListening);
      server.listen(this.config.port, this.config.host);
    });
  }

  /**
   * Stop accepting, answer 503 to requests that still arrive on open connections, wait for the
   * in-flight ones up to `timeoutMs`, then cut whatever is left.
   */
  async close(timeoutMs: number): Promise<{ drained: boolean }> {
    this.draining = true;
    this.drain.abort();
    const server = this.server;
    if (!server) return { drained: true };
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    let drained = true;
    if (this.inFlight > 0) {
      drained = await Promise.race([
        new Promise<boolean>((resolve) => this.idleWaiters.push(() => resolve(true))),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(false), timeoutMs).unref()),
      ]);
    }
    server.closeAllConnections();
    await closed;
    return { drained };
  }

  /**
   * The whole pipeline of one request. A matched route's request is answered without a promise of
   * our own when everything on its way is synchronous (a light route without auth, a queue or a
   * body, whose handler answers at once: /health); otherwise by one chain of async steps, each of
   * which ends in `answered` (the error body, metrics and log line) rather than rejecting.
   */
  private handle(event: H3Event): unknown {
    const started = performance.now();
    const req = event.req;
    const nodeResponse = nodeSide(event)?.res;
    const sent = req.headers.get('x-request-id');
    const requestId = sent !== null && requestIdPattern.test(sent) ? sent : newRequestId();
    // On Node our response class writes the header with the status line (RequestIdResponse):
    // touching event.res.headers makes h3 build and merge a Headers object for every response,
    // and setHeader() now sends every header through Node's slower merging path.
    if (nodeResponse instanceof RequestIdResponse) nodeResponse.requestId = requestId;
    else if (nodeResponse) nodeResponse.setHeader('x-request-id', requestId);
    else event.res.headers.set('x-request-id', requestId);
    const x = new Exchange(event, nodeResponse, requestId, req.method, started);
    // A request counts as in flight until its response is flushed (the socket may still be writing
    // after the handler returns), so the drain on shutdown never cuts a response half-written.
    this.inFlight++;
    // `on`, not `once`: a response closes once, and once() wraps the listener in a new function each time.
    if (nodeResponse) nodeResponse.on('close', this.onResponseClosed);
    let match: { data: MountedRoute; params?: Record<string, string> } | undefined;
    try {
      if (this.draining) throw new ShuttingDownError();
      const origin = req.headers.get('origin');
      const cors = this.config.cors;
      const crossOrigin = corsAllows(cors, origin);
      this.checkHostAndOrigin(req.headers, origin, crossOrigin);
      if (crossOrigin) {
        for (const [name, value] of Object.entries(corsHeaders(cors!, origin))) {
          if (nodeResponse) nodeResponse.setHeader(name, value);
          else event.res.headers.set(name, value);
        }
      }
      // Routing sees the path as sent, segment by segment, and parameters are decoded only after
      // matching: `%2E%2E` or a literal `..` is an id, never a step up the route tree.
      const path = rawPathname(event);
      const preflight = crossOrigin && x.method === 'OPTIONS' && req.headers.has('access-control-request-method');
      match = preflight ? undefined : this.routes.find(x.method, path);
      if (match === undefined) return this.handleUnrouted(x, path, preflight, origin);
    } catch (err) {
      return this.answered(x, this.errorBody(event, err, requestId, { route: '(unmatched)' }));
    }
    x.route = match.data;
    return this.run(x, match.params);
  }

  /** Preflights, static files, 404 and 405: the requests no route matched. */
  private async handleUnrouted(x: Exchange, path: string, preflight: boolean, origin: string | null): Promise<unknown> {
    const { event, method } = x;
    let plugin: string | undefined;
    let body: unknown;
    try {
      // Routes first (a path routed under other methods answers 405), then a plugin's static files
      // (public: a UI must load to show its sign-in).
      const allow = preflight ? undefined : this.routes.allowed(path);
      const mount = !preflight && allow === undefined && (method === 'GET' || method === 'HEAD') ? this.statics.find((m) => underMount(m, path)) : undefined;
      const served = mount ? await serveFromMount(event, mount) : undefined;
      if (preflight) {
        x.label = '(preflight)';
        body = corsPreflight(this.config.cors!, origin!);
      } else if (mount && served !== undefined) {
        x.label = `static:${mount.prefix}`;
        plugin = mount.plugin;
        body = served;
      } else if (allow === undefined) {
        throw new TesseraError('route_not_found', 404, `No route for ${method} ${path} on this listener.`);
      } else {
        throw new TesseraError('method_not_allowed', 405, `${method} is not allowed on ${path}; use ${allow.join(', ')}.`, {
          details: { allow },
          headers: { allow: allow.join(', ') },
        });
      }
    } catch (err) {
      body = this.errorBody(event, err, x.requestId, { route: x.label, plugin });
    }
    return this.answered(x, body);
  }

  /** A failure in a matched route's pipeline, as its answer. */
  private failed(x: Exchange, err: unknown): unknown {
    return this.answered(x, this.errorBody(x.event, err, x.requestId, { route: x.route!.definition.path, plugin: x.route!.plugin }));
  }

  /** The request's metrics and log line, once its answer is known; gives the answer back. */
  private answered(x: Exchange, body: unknown): unknown {
    if (!x.nodeResponse) this.finished();
    const { event, method, route } = x;
    const status = body instanceof Response ? body.status : responseStatus(event);
    const ms = performance.now() - x.started;
    const metrics = this.deps.metrics;
    let label = x.label;
    if (route) {
      label = route.definition.path;
      let series = route.series;
      if (series === undefined || series.status !== status || series.method !== method) {
        series = metrics.requestSeries(this.name, method, label, status);
        route.series = series;
      }
      metrics.observeSeries(series, ms / 1000);
    } else metrics.observeRequest(this.name, method, label, status, ms / 1000);
    this.requestLog.write(x.requestId, method, label, status, Math.round(ms * 100) / 100);
    return body;
  }

  /**
   * A browser on a malicious page can reach a loopback listener by DNS rebinding (its Host is then
   * the attacker's name) or by a cross-site request (its Origin is another site). Without a
   * credential to check, neither is told apart from a local client any other way.
   */
  private checkHostAndOrigin(headers: Headers, origin: string | null, corsAllowed: boolean): void {
    const allowed = this.config.allowedHosts;
    const host = headers.get('host');
    // Clients send the same Host again and again: the last one found allowed is not checked twice.
    if (allowed !== true && (host === null || host !== this.lastAllowedHost)) {
      const name = host === null ? '' : hostName(host);
      if (!allowed.some((a) => a === name || (a.startsWith('.') && (name.endsWith(a) || name === a.slice(1))))) {
        throw new TesseraError(
          'host_not_allowed',
          403,
          `Host ${JSON.stringify(host ?? '')} is not allowed on this listener; add it to the listener's "allowedHosts" in the manifest.`,
          {
            details: { host: host ?? '' },
          },
        );
      }
      if (host !== null) this.lastAllowedHost = host;
    }
    if (!this.config.auth) {
      if (origin !== null && !corsAllowed && !sameOrigin(origin, host)) {
        throw new TesseraError(
          'origin_not_allowed',
          403,
          `Requests from origin ${JSON.stringify(origin)} are refused: this listener has no auth, so only pages it serves itself may call it.`,
          {
            details: { origin },
          },
        );
      }
    }
  }

  private finished(): void {
    this.inFlight--;
    if (this.inFlight === 0 && this.idleWaiters.length > 0) {
      for (const wake of this.idleWaiters.splice(0)) wake();
    }
  }

  /** Auth, a throttle slot, the request, the handler: synchronous as far as each step allows. */
  private run(x: Exchange, rawParams: Record<string, string> | undefined): unknown {
    const route = x.route!;
    const def = route.definition;
    if ((this.config.auth || def.authenticate === 'always') && def.permission !== 'public') return this.runAuthenticated(x, rawParams);
    if (!this.throttle.tryAcquire(route.tier)) return this.runQueued(x, rawParams, undefined);
    return this.runHeld(x, rawParams, undefined);
  }

  private async runAuthenticated(x: Exchange, rawParams: Record<string, string> | undefined): Promise<unknown> {
    const { event, route } = x;
    const def = route!.definition;
    let principal: Principal | undefined;
    try {
      const authenticate = this.deps.authenticator();
      if (!authenticate) {
        throw new TesseraError(
          'auth_provider_missing',
          500,
          `${def.method} ${def.path} must authenticate, but no plugin registered an authenticator (load rbac).`,
        );
      }
      principal = await authenticate({
        headers: event.req.headers,
        method: event.req.method,
        path: event.url.pathname,
        route: def.path,
        permission: def.permission,
        listener: this.name,
        ip: getRequestIP(event),
        requestId: x.requestId,
      });
    } catch (err) {
      return this.failed(x, err);
    }
    if (!this.throttle.tryAcquire(route!.tier)) return await this.runQueued(x, rawParams, principal);
    return await this.runHeld(x, rawParams, principal);
  }

  /**
   * A request whose client has gone leaves the queue at once, and one that lost its client while
   * queued (or while the event loop was busy) does no work at all. On Node, whether the client has
   * gone is read off the request and response directly, as h3's AbortSignal itself would be set
   * from them, and no signal is made.
   */
  private async runQueued(x: Exchange, rawParams: Record<string, string> | undefined, principal: Principal | undefined): Promise<unknown> {
    try {
      const pending = this.throttle.acquire(x.route!.tier, clientSignal(x.event));
      if (pending && !(await pending)) throw new ClientClosedError();
    } catch (err) {
      return this.failed(x, err);
    }
    return await this.runHeld(x, rawParams, principal);
  }

  /** With the route's throttle slot held, which is released once the answer is known. */
  private runHeld(x: Exchange, rawParams: Record<string, string> | undefined, principal: Principal | undefined): unknown {
    const route = x.route!;
    let body: unknown;
    try {
      if (clientGone(x.event)) throw new ClientClosedError();
      // Built synchronously unless the runtime has a body to read: no promise or tick for a GET.
      const built = this.buildRequest(x.event, route, rawParams, x.requestId, principal);
      if (route.tier !== 'light' || !(built instanceof HttpRouteRequest)) return this.runAsync(x, built, undefined);
      const returned: unknown = route.definition.handler(built as RouteRequest<any, any>);
      // A handler that answers synchronously (health, lookups in memory) is not awaited: no promise, no tick.
      if (isThenable(returned)) return this.runAsync(x, built, returned);
      body = this.successBody(x.event, returned);
    } catch (err) {
      this.throttle.release(route.tier);
      return this.failed(x, err);
    }
    this.throttle.release(route.tier);
    return this.answered(x, body);
  }

  /** The rest of `runHeld` once something had to be awaited: the body, the next turn, or the handler's answer. */
  private async runAsync(x: Exchange, built: HttpRouteRequest | Promise<HttpRouteRequest>, returned: PromiseLike<unknown> | undefined): Promise<unknown> {
    const route = x.route!;
    let body: unknown;
    try {
      if (returned === undefined) {
        const request = built instanceof HttpRouteRequest ? built : await built;
        if (route.tier !== 'light') {
          // One turn of the event loop before work that may be long: requests whose sockets closed
          // in the same poll as their bodies arrived are seen as gone, and skipped.
          await nextTurn();
          if (clientGone(x.event)) throw new ClientClosedError();
        }
        const answer: unknown = route.definition.handler(request as RouteRequest<any, any>);
        body = this.successBody(x.event, isThenable(answer) ? await answer : answer);
      } else body = this.successBody(x.event, await returned);
    } catch (err) {
      this.throttle.release(route.tier);
      return this.failed(x, err);
    }
    this.throttle.release(route.tier);
    return this.answered(x, body);
  }

  private buildRequest(
    event: H3Event,
    route: MountedRoute,
    rawParams: Record<string, string> | undefined,
    requestId: string,
    principal: Principal | undefined,
  ): HttpRouteRequest | Promise<HttpRouteRequest> {
    const def = route.definition;
    const headers = event.req.headers;
    const params: Record<string, string> = {};
    if (rawParams) for (const key in rawParams) params[key] = decodeParam(key, rawParams[key]!);
    const query = def.query ? validate(def.query as z.ZodType, Object.fromEntries(event.url.searchParams), 'query string', 'query') : undefined;

    // With a `body` schema the runtime reads the body; text()/stream() then give back that text.
    const schema = def.body as z.ZodType | undefined;
    // A route that neither reads a body nor restricts its type leaves the body headers unread.
    if (!schema && !def.accepts) return this.routeRequest(event, route, params, query, undefined, undefined, requestId, principal);
    const length = headers.get('content-length');
    const hasBody = length !== null ? length !== '0' : headers.has('transfer-encoding');
    const type = mediaType(headers);
    if (hasBody && def.accepts && !def.body && !def.accepts.includes(type)) {
      throw new UnsupportedMediaTypeError(type, def.accepts);
    }
    if (!schema) return this.routeRequest(event, route, params, query, undefined, undefined, requestId, principal);
    if (!hasBody) return this.routeRequest(event, route, params, query, validate(schema, undefined, 'request body', 'body'), '', requestId, principal);
    if (!isJsonMediaType(type)) throw new UnsupportedMediaTypeError(type, ['application/json']);
    return readBodyText(event, route.bodyLimit).then((rawText) => {
      const body = validate(schema, rawText.length === 0 ? undefined : parseJson(rawText), 'request body', 'body');
      return this.routeRequest(event, route, params, query, body, rawText, requestId, principal);
    });
  }

  private routeRequest(
    event: H3Event,
    route: MountedRoute,
    params: Record<string, string>,
    query: unknown,
    body: unknown,
    rawText: string | undefined,
    requestId: string,
    principal: Principal | undefined,
  ): HttpRouteRequest {
    return new HttpRouteRequest(
      event,
      params,
      query,
      body,
      rawText,
      requestId,
      this.name,
      route.plugin,
      principal,
      this.deps.log,
      route.bodyLimit,
      this.drain.signal,
      this.listedOrigins,
    );
  }

  private successBody(event: H3Event, result: unknown): unknown {
    if (result instanceof Response) return result;
    if (result instanceof Reply) {
      event.res.status = result.status;
      for (const [name, value] of Object.entries(result.headers)) event.res.headers.set(name, value);
      return result.status === 204 ? null : withOk(result.body);
    }
    return withOk(result);
  }

  private errorBody(event: H3Event, err: unknown, requestId: string, where: { route?: string; plugin?: string } = {}): unknown {
    // Whose route raised it, for the logs (Rollup's habit): the body's code already says what.
    if (isTesseraError(err) && where.plugin !== undefined) err.plugin ??= where.plugin;
    // Deliberate errors keep their code (404, 429, 502, 503...); a 500 means something broke.
    if (isTesseraError(err) && err.status !== 500) {
      event.res.status = err.status;
      if (err.headers) for (const [name, value] of Object.entries(err.headers)) event.res.headers.set(name, value);
      return { ok: false, error: err.toJSON() };
    }
    if (err instanceof HTTPError && err.status < 500) {
      // h3's own refusals (malformed URL) keep their status in our body shape.
      event.res.status = err.status;
      return { ok: false, error: { code: 'invalid_request', message: err.message } };
    }
    this.deps.log.error({ err, reqId: requestId, listener: this.name, method: event.req.method, ...where }, 'unhandled error');
    event.res.status = 500;
    return {
      ok: false,
      error: {
        code: 'internal_error',
        message: `Internal error. Quote request id ${requestId} when reporting it.`,
        details: { requestId },
      },
    };
  }
}

/**
 * The request path exactly as the client sent it, without the query string. h3's `event.url` is a
 * WHATWG URL, which removes dot segments (`/a/%2E%2E` becomes `/`): routing on it would let a
 * document id `..` address its index.
 */
export function rawPathname(event: H3Event): string {
  const raw = (event.req as { runtime?: { node?: { req?: { url?: string } } } }).runtime?.node?.req?.url;
  if (raw === undefined) return event.url.pathname;
  if (raw.charCodeAt(0) !== 47 /* '/' */) return event.url.pathname; // absolute-form or '*'
  const end = raw.search(/[?#]/);
  return end === -1 ? raw : raw.slice(0, end);
}

function decodeParam(name: string, value: string): string {
  if (value.indexOf('%') === -1) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    throw new TesseraError('invalid_request', 400, `Path parameter "${name}" has malformed percent-encoding: ${JSON.stringify(value)}.`, {
      details: { param: name },
    });
  }
}

let turn: Promise<void> | undefined;

/**
 * Resolves in the check phase of the event loop, after the pending I/O has been polled: one
 * setImmediate shared by every request that asks in the same turn, rather than one each.
 */
function nextTurn(): Promise<void> {
  return (turn ??= new Promise<void>((resolve) =>
    setImmediate(() => {
      turn = undefined;
      resolve();
    }),
  ));
}

type NodeSide = { req?: IncomingMessage; res?: ServerResponse };

/**
 * Whether the client has gone: what the request's AbortSignal says, without making one. On Node
 * h3's signal aborts when the response closes unfinished or the request errors (srvx's adapter);
 * the same is read here from the two objects. Elsewhere (`fetch` in tests) the signal is used.
 */
function clientGone(event: H3Event): boolean {
  const node = nodeSide(event);
  const req = node?.req;
  const res = node?.res;
  if (!req || !res) return event.req.signal.aborted;
  if (req.errored) return true;
  if (res.writableEnded) return false;
  return res.destroyed || req.aborted || (req.destroyed && !req.complete);
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as { then?: unknown }).then === 'function';
}

/**
 * The client's going-away as the throttle queue needs it. On Node, the response's 'close' while
 * the request waits is exactly when h3's AbortSignal would abort (an unfinished response closing),
 * without an AbortController and EventTarget per queued request; elsewhere, the signal itself.
 */
function clientSignal(event: H3Event): ClientSignal {
  const res = nodeSide(event)?.res;
  return res ? new NodeClient(event, res) : event.req.signal;
}

class NodeClient implements ClientSignal {
  private readonly event: H3Event;
  private readonly res: ServerResponse;

  constructor(event: H3Event, res: ServerResponse) {
    this.event = event;
    this.res = res;
  }

  get aborted(): boolean {
    return clientGone(this.event);
  }

  // `on`, not `once` (which wraps each listener in a new function): the queue removes its listener
  // when the request leaves, and a response closes only once.
  addEventListener(_type: 'abort', listener: () => void): void {
    this.res.on('close', listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    this.res.off('close', listener);
  }
}

/** h3's per-event response state (status, headers), made by `event.res` on first use. */
const kEventRes = Symbol.for('h3.internal.event.res');

/** The status h3 will answer with: read without making `event.res` for a request that never set one. */
function responseStatus(event: H3Event): number {
  const res = (event as unknown as Record<symbol, { status?: number } | undefined>)[kEventRes];
  return res?.status ?? 200;
}

/** The Node request and response under an h3 event, when served by Node. */
function nodeSide(event: H3Event): NodeSide | undefined {
  return (event.req as { runtime?: { node?: NodeSide } }).runtime?.node;
}

/** One request's state through the pipeline: one object, where closures would capture the same. */
class Exchange {
  // `declare`: set once each, in the constructor (no separate field initializer).
  declare readonly event: H3Event;
  declare readonly nodeResponse: ServerResponse | undefined;
  declare readonly requestId: string;
  declare readonly method: string;
  declare readonly started: number;
  declare route: MountedRoute | undefined;
  /** The metrics and log label of a request no route matched. */
  declare label: string;

  constructor(event: H3Event, nodeResponse: ServerResponse | undefined, requestId: string, method: string, started: number) {
    this.event = event;
    this.nodeResponse = nodeResponse;
    this.requestId = requestId;
    this.method = method;
    this.started = started;
    this.route = undefined;
    this.label = '(unmatched)';
  }
}

/**
 * h3 with our pipeline as its one handler: no router of its own (our RouteTable routes), so no
 * path split, params object or catch-all match per request.
 */
class ListenerApp extends H3Core {
  private readonly handle: (event: H3Event) => unknown;

  constructor(config: Omit<H3Config, 'plugins'>, handle: (event: H3Event) => unknown) {
    super(config);
    this.handle = handle;
  }

  override handler(event: H3Event): unknown {
    return this.handle(event);
  }
}

class ClientClosedError extends TesseraError {
  constructor() {
    super('client_closed_request', 499, 'The client closed the connection before the request was served.');
  }
}

/** The host name of a Host header, lower-cased, without port or IPv6 brackets. */
function hostName(host: string): string {
  const h = host.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']') === -1 ? undefined : h.indexOf(']'));
  const colon = h.lastIndexOf(':');
  return colon === -1 ? h : h.slice(0, colon);
}
