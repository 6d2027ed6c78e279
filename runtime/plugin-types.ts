import type { H3Event } from 'h3';
import type { Logger } from 'pino';
import type { DependencyContainer, InjectionToken } from 'tsyringe';
import type { z } from 'zod';
import type { ErrorSpec, ErrorTable } from './define-errors.js';
import type { EventLog } from './events/event-types.js';
import type { JobsService } from './jobs/job-types.js';
import type { StaticOptions } from './static-files.js';
import type { OutboundClient } from './outbound/outbound-client.js';
import type { PluginMetrics } from './metrics.js';
import type { ThrottleTier } from './manifest-schema.js';
import type { StoreNamespace } from './store.js';
import type { TaskRunner } from './tasks.js';
import type { KernelRunner } from '../kernels/src/index.js';

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';

/**
 * What a route requires of its caller. `public`: nothing, even where auth is on. `authenticated`:
 * any valid credential. Anything else is a permission name the auth provider must grant.
 */
export type RoutePermission = 'public' | 'authenticated' | (string & {});

/** Who is calling, as established by the auth provider. */
export interface Principal {
  /** Stable id of the user or key. */
  id: string;
  kind: 'user' | 'key' | 'anonymous';
  tenant?: string;
  permissions: readonly string[];
  [extra: string]: unknown;
}

export interface AuthRequest {
  headers: Headers;
  method: string;
  path: string;
  /** The matched route's path pattern (`/v1/indexes/:name`), for grouping requests to one route. */
  route?: string;
  /** The permission the matched route declares (never `public`: those skip auth). */
  permission: RoutePermission;
  listener: string;
  /** The peer address (the socket's, not a forwarded header), for per-address limits. */
  ip: string | undefined;
  requestId: string;
}

/**
 * Supplied by the auth provider plugin (rbac). Returns the principal, or throws a TesseraError:
 * 401 `missing_api_key` / `invalid_api_key`, 403 `permission_denied` / `tenant_mismatch`.
 */
export type Authenticator = (request: AuthRequest) => Principal | Promise<Principal>;

export interface RouteRequest<Body = unknown, Query = Record<string, string>> {
  /**
   * The tenant the request acts in: the principal's (which the auth provider may take from
   * `X-Tenant` for cross-tenant keys), or `default` where the listener has auth off.
   */
  tenant: string;
  /** The underlying h3 event, for what the other fields do not cover. */
  event: H3Event;
  /** The request method (`HEAD` when a `GET` route answers a `HEAD`). */
  method: string;
  /** The path as requested, without the query string. */
  path: string;
  /** The full request URL. */
  url: URL;
  /** Request headers (lower-case names: `headers.get('x-api-key')`). */
  headers: Headers;
  /** Path parameters, percent-decoded (`/notes/a%2Fb` gives `a/b`). */
  params: Record<string, string>;
  /** The validated `query` output, or the raw query as `Record<string, string>` when the route has no `query` schema. */
  query: Query;
  /** The validated JSON body, when the route declares a `body` schema; `undefined` otherwise. */
  body: Body;
  /** The request id, also sent back in `x-request-id`. */
  requestId: string;
  /** The name of the listener that received the request. */
  listener: string;
  /** The caller, when the authenticator ran (routes other than `public` on a listener with auth on). */
  principal?: Principal;
  /**
   * Whether a browser page that may act for the user sent this: no `Origin` header (not a
   * cross-origin browser request), this listener's own origin, or one its manifest lists by name in
   * `cors.origins` (`"*"` names nobody). For endpoints that must refuse other sites even on a
   * listener with auth on, such as signing in (login CSRF).
   */
  readonly originTrusted: boolean;
  /** A child logger with `reqId` and `plugin` fields. */
  log: Logger;
  /** Aborted when the client goes away: pass it to long work and to `sse()`. */
  signal: AbortSignal;
  /**
   * Aborted when the listener starts draining for shutdown. Ordinary requests should just finish;
   * endless ones (event streams, long polls) should end, or shutdown waits for its timeout.
   */
  shutdownSignal: AbortSignal;
  /**
   * The raw body as a stream of chunks with backpressure, for routes that declare `accepts`.
   * Throws 413 `body_too_large` as soon as the running total passes the limit.
   */
  stream(): AsyncIterable<Uint8Array>;
  /** The raw body, whole and decoded as UTF-8 (bounded by the same limit). */
  text(): Promise<string>;
}

export interface RouteDefinition<BodySchema extends z.ZodType | undefined = undefined, QuerySchema extends z.ZodType | undefined = undefined> {
  /** A `GET` route also answers `HEAD` unless a `HEAD` route exists for the path. */
  method: HttpMethod;
  /**
   * A rou3 pattern: `/v1/indexes/:name` (one segment, `params.name`), `/files/:path+` or
   * `/files/**:path` (one or more segments), `/files/**` (zero or more, `params["0"]`). Case-sensitive;
   * a trailing slash on the request is ignored. Two patterns differing only in parameter names
   * (`/notes/:id`, `/notes/:key`) are the same route: the second is `plugin_route_conflict`.
   */
  path: string;
  /**
   * `public`: no credential, even where auth is on. `authenticated`: any valid credential. Any other
   * string: a permission a loaded plugin declares, which the authenticator must grant.
   */
  permission: RoutePermission;
  /**
   * `always`: authenticate and check `permission` even on a listener whose auth is off (user and
   * key management is never open). Needs an auth provider plugin loaded.
   */
  authenticate?: 'always';
  /** Concurrency tier (`light`, `standard`, `heavy`); default `standard`. */
  throttle?: ThrottleTier;
  /**
   * JSON body schema: requires `application/json`, answers 400 `invalid_json` / `validation_failed`;
   * the output is `request.body`. Not with `accepts`.
   */
  body?: BodySchema;
  /** Query-string schema (values arrive as strings: use `z.coerce`); the output is `request.query`. */
  query?: QuerySchema;
  /** Content types (lower case, no parameters) the route reads itself through `stream()` / `text()` (e.g. `application/x-ndjson`). */
  accepts?: string[];
  /** Largest body in bytes, else 413 `body_too_large`; default the manifest's `limits.bodyBytes` (1 MiB). */
  bodyLimit?: number;
  /** One line for `/openapi.json`. */
  summary?: string;
  /** Longer text for `/openapi.json`. */
  description?: string;
  /** OpenAPI tags; default `[<plugin name>]`. */
  tags?: string[];
  /** Schema of the success body, for `/openapi.json` only (responses are not validated against it). */
  response?: z.ZodType;
  /** Success status for the OpenAPI document when it is not 200 (e.g. 201 for `reply(201, ...)`). */
  successStatus?: number;
  /** Content type of the success body when it is not JSON (e.g. `text/event-stream`), for `/openapi.json`. */
  produces?: string;
  /** Produces the answer: a JSON value (sent with `ok: true`), `reply(status, body)`, a `Response`, or `sse(...)`. May be async. */
  handler: (
    request: RouteRequest<
      BodySchema extends z.ZodType ? z.output<BodySchema> : undefined,
      QuerySchema extends z.ZodType ? z.output<QuerySchema> : Record<string, string>
    >,
  ) => unknown | Promise<unknown>;
}

export interface RouteHandle {
  readonly method: HttpMethod;
  readonly path: string;
  /** Unmount the route from every listener that serves it. */
  remove(): void;
}

export interface RouteRegistry {
  add<B extends z.ZodType | undefined = undefined, Q extends z.ZodType | undefined = undefined>(route: RouteDefinition<B, Q>): RouteHandle;
  list(): ReadonlyArray<{ method: HttpMethod; path: string; permission: RoutePermission }>;
  /**
   * Serve the files under `dir` (an absolute path) at `prefix` (`/ui`, or `/`) on this plugin's
   * listeners, for GET and HEAD, after the routes: a route of the same path wins. Public (no
   * credential), like any web page's assets. Conditional requests answer 304; `*.html` is
   * revalidated each time, content-hashed names are cached for a year; with `spaFallback`, a GET
   * that accepts HTML of a path without a file extension gets `index.html` (client-side routes).
   */
  static(prefix: string, dir: string, options?: StaticOptions): void;
}

export type Provider<T> = { useValue: T } | { useFactory: (container: DependencyContainer) => T } | { useClass: new (...args: any[]) => T };

export interface AppInfo {
  /** The manifest's `name`. */
  name: string;
  /** Absolute path of the store directory. */
  dataDir: string;
  /** Absolute path of the manifest file (or a label such as `(createTestApp)` for manifests built in code). */
  manifestFile: string;
  /**
   * Every listener of the manifest with its `url` and whether it enforces auth. Listeners bind after
   * every `onStart` hook ran: during `setup` and `onStart`, `port` and `url` show the configured port
   * (`0` for "any"); read it again later (in a handler) for the bound one.
   */
  readonly listeners: ReadonlyArray<{ name: string; host: string; port: number; url: string; plugins: readonly string[]; auth: boolean }>;
}

/** A permission a plugin's routes require, declared by the plugin (`definePlugin({permissions})`). */
export interface PermissionDeclaration {
  /** `domain:action`, e.g. `search:read`. */
  name: string;
  /** What it allows, for docs/rbac.md and the auth provider's listings. */
  description: string;
}

/** A declared permission with the plugin that declared it (`runtime` for the runtime's own). */
export interface PermissionInfo extends PermissionDeclaration {
  plugin: string;
}

/** `ctx.jobs`: every tenant's jobs; `tenant(name)` narrows to one tenant's. */
export type PluginJobs = JobsService & { tenant(name: string): JobsService };

export interface PluginContext<Options = Record<string, never>> {
  /** This plugin's name (its manifest key, store namespace and log field). */
  name: string;
  /** This plugin's version. */
  version: string;
  /** This plugin's options from the manifest, validated against its schema, defaults applied. */
  config: Options;
  /** Facts about the deployment: `name`, `dataDir`, `manifestFile`, `listeners`. */
  app: AppInfo;
  /** `add(definition)` mounts a route on this plugin's listeners; `list()` lists them; `static(prefix, dir)` serves files. */
  routes: RouteRegistry;
  /**
   * This plugin's own DI container. It can resolve its own registrations and the tokens its
   * declared dependencies `provide`d, nothing else.
   */
  container: DependencyContainer;
  /** Register `token` in this plugin's container and make it resolvable by plugins that depend on this one. */
  provide<T>(token: InjectionToken<T>, provider: Provider<T>): void;
  /** This plugin's namespace in the LMDB store: `db(name)`, `transaction(fn)`, `format(version, migrate)`. */
  store: StoreNamespace;
  /** The shared WASM kernel runner, created on first use. */
  readonly kernels: KernelRunner;
  /** A pino logger with `plugin: <name>` on every line. */
  log: Logger;
  /** The application's Prometheus registry and metric factories; a name another plugin registered is `plugin_metric_conflict`. */
  metrics: PluginMetrics;
  /** This plugin's persisted, append-only event log (job transitions are written to it too). */
  events: EventLog<any>;
  /** Durable jobs and schedules (runtime/jobs): persisted, retried, resumed after a restart. */
  jobs: PluginJobs;
  /**
   * The HTTP client for calls leaving the process. Destinations chosen by API callers go through the
   * deployment's egress policy (`trusted: true` for endpoints the operator wrote in the manifest).
   */
  outbound: OutboundClient;
  /**
   * Plain background loops that stop on shutdown and keep no record: prefer `jobs`, which persist,
   * retry and show progress. Kept for work that is derived and redone at start anyway.
   */
  tasks: TaskRunner;
  /** For the auth provider plugin: register the authenticator; read the deployment's declared permissions. */
  auth: {
    /** Make this plugin the authenticator for every listener with auth on (manifest `auth.provider`). */
    setAuthenticator(authenticator: Authenticator): void;
    /** Every permission the deployment's plugins (and the runtime) declare; complete once every setup has run. */
    permissions(): readonly PermissionInfo[];
  };
  /** Run `hook` after every plugin's setup, in dependency order, before the listeners bind. */
  onStart(hook: () => void | Promise<void>): void;
  /** Run `hook` at shutdown, in reverse dependency order, after requests drained and jobs stopped. */
  onStop(hook: () => void | Promise<void>): void;
}

/** A plugin's dependency: `"graph"` (any version) or `{ name: "graph", version: "^1.2.0" }`. */
export type PluginDependency = string | { name: string; version: string };

export interface PluginDefinition<OptionsSchema extends z.ZodType | undefined = z.ZodType | undefined> {
  name: string;
  /** Semver of the plugin; checked against dependents' ranges at load time. */
  version: string;
  dependsOn?: PluginDependency[];
  /** Schema for the manifest's `plugins.<name>.options`; use `.strict()` so unknown keys fail. */
  options?: OptionsSchema;
  /** The permissions this plugin's routes require; a route naming an undeclared one fails the load. */
  permissions?: readonly PermissionDeclaration[];
  /** The errors this plugin raises, from `defineErrors()`: they give the throw helpers and docs/errors.md. */
  errors?: ErrorTable<Record<string, ErrorSpec>>;
  /** Error codes as plain doc lines; the older form of `errors`, still read for docs/errors.md. */
  errorCodes?: ReadonlyArray<{ code: string; status: number; when: string }>;
  setup(ctx: PluginContext<OptionsSchema extends z.ZodType ? z.output<OptionsSchema> : Record<string, never>>): void | Promise<void>;
}
