import 'reflect-metadata';
import { container as rootContainer, type DependencyContainer, type InjectionToken } from 'tsyringe';
import type { Logger } from 'pino';
import { createKernelRunner, type KernelRunner } from '../kernels/src/index.js';
import { TesseraError, isTesseraError } from './errors.js';
import { openEventsDb, PersistedEventLog } from './events/event-log.js';
import { healthBody } from './health.js';
import { JobMetrics } from './jobs/job-metrics.js';
import { createOutboundClient, type OutboundClient } from './outbound/outbound-client.js';
import { JobStore } from './jobs/job-store.js';
import { PluginJobRunner } from './jobs/plugin-jobs.js';
import { HttpListener, ListenerError } from './listener.js';
import { createLogger, flushLogSync } from './logger.js';
import type { ResolvedManifest } from './manifest.js';
import { RuntimeMetrics } from './metrics.js';
import { openApiDocument } from './openapi.js';
import { notePluginSource } from './plugin-frame.js';
import { directDependencies, loadPlugins, PluginError, type LoadedPlugin, type ProvidedPlugin } from './plugin-loader.js';
import type { Authenticator, PluginContext, Provider, RouteDefinition, RouteHandle } from './plugin-types.js';
import { builtinRoutePermissions, PermissionRegistry, runtimePermissions } from './permissions.js';
import { Store, type StoreNamespace } from './store.js';
import { systemBody } from './system.js';
import { TaskRunner } from './tasks.js';
import { staticMount, type StaticMount } from './static-files.js';
import { runtimeVersion } from './version.js';

export interface AppOptions {
  logger?: Logger;
  /** Plugin definitions handed over in code instead of imported (tessera-runtime/testing), by manifest key. */
  plugins?: ReadonlyMap<string, ProvidedPlugin>;
}

interface PluginRuntime {
  plugin: LoadedPlugin;
  container: DependencyContainer;
  exports: Set<InjectionToken<unknown>>;
  startHooks: Array<() => void | Promise<void>>;
  stopHooks: Array<() => void | Promise<void>>;
  tasks: TaskRunner;
  jobs: PluginJobRunner;
  events: PersistedEventLog;
  started: boolean;
}

/** The runtime's own namespace in the store (jobs, schedules, event logs); no plugin name starts with "_". */
export const RUNTIME_NAMESPACE = '__runtime';
/** Format of the runtime namespace's data. */
export const RUNTIME_DATA_FORMAT = 1;

type AppState = 'created' | 'starting' | 'running' | 'stopping' | 'stopped';

/**
 * A running Tessera deployment: the manifest's plugins set up in dependency order on one store,
 * served by the manifest's listeners. `App.create` loads and sets up; `start` runs start hooks and
 * binds the ports; `stop` drains and tears down in reverse.
 */
export class App {
  readonly manifest: ResolvedManifest;
  readonly log: Logger;
  readonly metrics = new RuntimeMetrics();
  readonly listeners: HttpListener[];
  readonly permissions = new PermissionRegistry();
  readonly container: DependencyContainer;
  private store?: Store;
  private kernelRunner?: KernelRunner;
  private readonly plugins: PluginRuntime[] = [];
  private authenticator?: { plugin: string; fn: Authenticator };
  private runtimeStore?: StoreNamespace;
  private jobStore?: JobStore;
  private jobMetrics?: JobMetrics;
  private setupDone = false;
  private outbound?: OutboundClient & { close(): Promise<void> };
  private state: AppState = 'created';
  private readonly startedAt = Date.now();
  private readonly provided: ReadonlyMap<string, ProvidedPlugin>;

  private constructor(manifest: ResolvedManifest, options: AppOptions) {
    this.manifest = manifest;
    this.provided = options.plugins ?? new Map();
    this.log = options.logger ?? createLogger();
    this.container = rootContainer.createChildContainer();
    this.listeners = manifest.listeners.map(
      (config) =>
        new HttpListener({
          config,
          throttle: manifest.limits.throttle,
          bodyLimit: manifest.limits.bodyBytes,
          log: this.log.child({ component: 'http' }),
          metrics: this.metrics,
          authenticator: () => this.authenticator?.fn,
        }),
    );
  }

  /** Load every plugin and run its setup. Nothing listens yet. */
  static async create(manifest: ResolvedManifest, options: AppOptions = {}): Promise<App> {
    const app = new App(manifest, options);
    try {
      await app.setup();
    } catch (err) {
      await app.teardown();
      throw err;
    }
    return app;
  }

  get kernels(): KernelRunner {
    this.kernelRunner ??= createKernelRunner({ threads: this.manifest.kernels.threads });
    return this.kernelRunner;
  }

  private async setup(): Promise<void> {
    for (const listener of this.manifest.listeners) {
      if (!listener.auth && !isLoopback(listener.host)) {
        throw new ListenerError(
          'listener_insecure',
          `Listener "${listener.name}" binds ${listener.host}, which is reachable from other machines, but auth is off for it. Set "auth": {"provider": "rbac"} in the manifest (and load the rbac plugin), or bind 127.0.0.1.`,
        );
      }
    }
    const loaded = await loadPlugins(this.manifest, this.provided);
    this.store = Store.open(this.manifest.dataDir);
    this.runtimeStore = this.store.namespace(RUNTIME_NAMESPACE);
    await this.runtimeStore.format(RUNTIME_DATA_FORMAT);
    this.jobStore = new JobStore(this.runtimeStore);
    this.jobMetrics = new JobMetrics(this.metrics);
    this.registerRuntimeMetrics();
    this.permissions.add('runtime', runtimePermissions);
    for (const listener of this.listeners) this.mountRuntimeRoutes(listener);
    const eventsDb = openEventsDb(this.runtimeStore);
    this.outbound = createOutboundClient(this.manifest.egress, `Tessera/${runtimeVersion}`);
    const settings = this.manifest.jobs;

    const byName = new Map<string, PluginRuntime>();
    for (const plugin of loaded) {
      const pluginLog = this.log.child({ plugin: plugin.name });
      const events = new PersistedEventLog(plugin.name, eventsDb, pluginLog, this.manifest.events);
      const runtime: PluginRuntime = {
        plugin,
        container: this.container.createChildContainer(),
        exports: new Set(),
        startHooks: [],
        stopHooks: [],
        tasks: new TaskRunner(pluginLog),
        events,
        jobs: new PluginJobRunner({
          plugin: plugin.name,
          store: this.jobStore,
          events,
          log: pluginLog.child({ component: 'jobs' }),
          metrics: this.jobMetrics,
          settings,
        }),
        started: false,
      };
      this.jobMetrics.addSource(runtime.jobs);
      const declared = this.permissions.add(plugin.name, plugin.definition.permissions ?? []);
      if (declared.invalid !== undefined) {
        throw new PluginError(
          'plugin_invalid',
          plugin.name,
          `Declares permission "${declared.invalid}"; a permission is "domain:action" in lowercase letters, digits and "-", such as "notes:read".`,
        );
      }
      if (declared.duplicate) {
        throw new PluginError(
          'plugin_permission_conflict',
          plugin.name,
          `Declares permission "${declared.duplicate.name}", which plugin "${declared.duplicate.plugin}" already declares. A permission belongs to one plugin; use it without declaring it (depend on "${declared.duplicate.plugin}").`,
          { details: { permission: declared.duplicate.name, declaredBy: declared.duplicate.plugin } },
        );
      }
      // Encapsulation: a plugin sees the tokens its direct dependencies provide, nothing more.
      for (const dependency of directDependencies(plugin)) {
        const dep = byName.get(dependency)!;
        for (const token of dep.exports) {
          runtime.container.register(token, { useFactory: () => dep.container.resolve(token) });
        }
      }
      this.plugins.push(runtime);
      byName.set(plugin.name, runtime);
      const ctx = this.contextFor(runtime);
      try {
        await plugin.definition.setup(ctx as PluginContext<any>);
      } catch (cause) {
        // Start-up class errors keep their own code (store_version_unsupported, plugin_route_conflict...).
        if (isTesseraError(cause) && (cause.status === 500 || cause.plugin === plugin.name)) {
          cause.plugin ??= plugin.name;
          notePluginSource(cause, plugin.source);
          throw cause;
        }
        const error = new PluginError('plugin_setup_failed', plugin.name, `setup() failed: ${(cause as Error)?.message ?? String(cause)}`, { cause });
        notePluginSource(error, plugin.source);
        throw error;
      }
    }
    this.setupDone = true;
    for (const listener of this.listeners) {
      for (const route of listener.routes.list()) this.checkPermission(route.plugin, route.definition);
    }

    if (!this.authenticator) {
      for (const listener of this.listeners) {
        for (const route of listener.routes.list()) this.checkAlwaysAuthenticated(route.plugin, route.definition);
      }
    }

    if (this.manifest.auth) {
      const provider = this.manifest.auth.provider;
      if (!this.authenticator || this.authenticator.plugin !== provider) {
        throw new TesseraError(
          'auth_provider_missing',
          500,
          `"auth.provider" is "${provider}", but that plugin registered no authenticator (ctx.auth.setAuthenticator).`,
        );
      }
    }
  }

  /**
   * A route that must always authenticate cannot be served without an authenticator: refused when
   * it is declared, not answered 500 at its first request.
   */
  private checkAlwaysAuthenticated(plugin: string, definition: Pick<RouteDefinition, 'method' | 'path' | 'permission' | 'authenticate'>): void {
    if (definition.authenticate !== 'always' || definition.permission === 'public' || this.authenticator) return;
    throw new PluginError(
      'auth_provider_missing',
      plugin,
      `${definition.method} ${definition.path} declares authenticate: 'always', but no loaded plugin registers an authenticator. Load rbac (or another auth provider).`,
      { details: { route: `${definition.method} ${definition.path}` }, status: 500 },
    );
  }

  /** A route's permission must be `public`, `authenticated` or declared by a loaded plugin (or the runtime). */
  private checkPermission(plugin: string, definition: Pick<RouteDefinition, 'method' | 'path' | 'permission'>): void {
    const permission = definition.permission;
    if (builtinRoutePermissions.has(permission) || this.permissions.has(permission)) return;
    throw new PluginError(
      'plugin_permission_undeclared',
      plugin,
      `${definition.method} ${definition.path} requires permission "${permission}", which no loaded plugin declares. Add {name: "${permission}", description} to the "permissions" of the plugin that owns it.`,
      { details: { permission, route: `${definition.method} ${definition.path}` }, ...(this.setupDone ? { status: 500 } : {}) },
    );
  }

  private contextFor(runtime: PluginRuntime): PluginContext<unknown> {
    const { plugin } = runtime;
    const name = plugin.name;
    const log = this.log.child({ plugin: name });
    const listeners = this.listeners.filter((l) => l.config.plugins.includes(name));
    const app = this;
    const store = this.store!.namespace(name);
    const mountedRoutes: Array<{ method: RouteDefinition['method']; path: string; permission: string }> = [];
    return {
      name,
      version: plugin.definition.version,
      config: plugin.options,
      app: {
        name: this.manifest.name,
        dataDir: this.manifest.dataDir,
        manifestFile: this.manifest.file,
        // A getter: ports are known once bound (a manifest may say 0).
        get listeners() {
          return app.listeners.map((l) => ({ name: l.name, ...l.address, plugins: l.config.plugins, auth: l.config.auth }));
        },
      },
      routes: {
        add(definition): RouteHandle {
          if (app.setupDone) {
            app.checkPermission(name, definition);
            app.checkAlwaysAuthenticated(name, definition);
          }
          if (definition.body && definition.accepts) {
            throw new PluginError(
              'plugin_route_invalid',
              name,
              `${definition.method} ${definition.path} declares both "body" (JSON, parsed by the runtime) and "accepts" (raw, read by the handler); choose one.`,
            );
          }
          for (const listener of listeners) {
            const existing = listener.routes.conflict(definition.method, definition.path);
            if (existing) {
              throw new PluginError(
                'plugin_route_conflict',
                name,
                `${definition.method} ${definition.path} is already served on listener "${listener.name}" by plugin "${existing.plugin}" (as ${existing.definition.path}).`,
                { status: 409 },
              );
            }
          }
          for (const listener of listeners) listener.mount(name, definition as RouteDefinition<any, any>);
          const entry = { method: definition.method, path: definition.path, permission: definition.permission };
          mountedRoutes.push(entry);
          let removed = false;
          return {
            method: definition.method,
            path: definition.path,
            remove() {
              if (removed) return;
              removed = true;
              for (const listener of listeners) listener.routes.remove(definition.method, definition.path);
              mountedRoutes.splice(mountedRoutes.indexOf(entry), 1);
            },
          };
        },
        list: () => [...mountedRoutes],
        static(prefix, dir, options) {
          let mount: StaticMount;
          try {
            mount = staticMount(name, prefix, dir, options);
          } catch (err) {
            throw new PluginError('plugin_route_invalid', name, (err as Error).message);
          }
          for (const listener of listeners) {
            const existing = listener.statics.find((m) => m.prefix === mount.prefix);
            if (existing) {
              throw new PluginError(
                'plugin_route_conflict',
                name,
                `Static files under ${prefix} are already served on listener "${listener.name}" by plugin "${existing.plugin}".`,
                { status: 409 },
              );
            }
          }
          for (const listener of listeners) {
            listener.statics.push(mount);
            listener.statics.sort((a, b) => b.prefix.length - a.prefix.length);
          }
        },
      },
      container: runtime.container,
      provide<T>(token: InjectionToken<T>, provider: Provider<T>): void {
        if ('useValue' in provider) runtime.container.register(token, { useValue: provider.useValue });
        else if ('useFactory' in provider) runtime.container.register(token, { useFactory: provider.useFactory });
        else runtime.container.registerSingleton(token, provider.useClass);
        runtime.exports.add(token as InjectionToken<unknown>);
      },
      store,
      get kernels(): KernelRunner {
        return app.kernels;
      },
      log,
      metrics: this.metrics.forPlugin(name),
      events: runtime.events,
      jobs: runtime.jobs.view(),
      outbound: this.outbound!,
      tasks: runtime.tasks,
      auth: {
        setAuthenticator: (fn: Authenticator) => {
          if (this.authenticator && this.authenticator.plugin !== name) {
            throw new PluginError('plugin_setup_failed', name, `Plugin "${this.authenticator.plugin}" already registered the authenticator.`);
          }
          this.authenticator = { plugin: name, fn };
        },
        permissions: () => this.permissions.list(),
      },
      onStart: (hook) => {
        runtime.startHooks.push(hook);
      },
      onStop: (hook) => {
        runtime.stopHooks.push(hook);
      },
    };
  }

  private mountRuntimeRoutes(listener: HttpListener): void {
    listener.mount('runtime', {
      method: 'GET',
      path: '/health',
      permission: 'public',
      throttle: 'light',
      summary: 'Liveness and resource usage',
      tags: ['runtime'],
      handler: () => healthBody(this.startedAt),
    });
    const metricsPath = listener.config.metricsPath;
    if (metricsPath !== false) {
      listener.mount('runtime', {
        method: 'GET',
        path: metricsPath,
        permission: 'public',
        throttle: 'light',
        summary: 'Prometheus metrics',
        tags: ['runtime'],
        produces: 'text/plain; version=0.0.4',
        handler: async () =>
          new Response(await this.metrics.registry.metrics(), {
            headers: { 'content-type': this.metrics.registry.contentType },
          }),
      });
    }
    listener.mount('runtime', {
      method: 'GET',
      path: '/v1/system',
      permission: 'system:read',
      throttle: 'light',
      summary: 'The deployment: plugins, listeners, jobs and schedules, store and kernel pool',
      tags: ['runtime'],
      handler: () => this.system(),
    });
    listener.mount('runtime', {
      method: 'GET',
      path: '/openapi.json',
      permission: 'public',
      throttle: 'light',
      summary: 'OpenAPI 3.1 description of this listener',
      tags: ['runtime'],
      handler: () =>
        new Response(
          JSON.stringify(
            openApiDocument({
              title: `${this.manifest.name} (${listener.name})`,
              version: runtimeVersion,
              routes: listener.routes.list(),
              authOn: listener.config.auth,
            }),
          ),
          { headers: { 'content-type': 'application/json' } },
        ),
    });
  }

  /** The registry the operator UIs read (`GET /v1/system`). */
  system(): ReturnType<typeof systemBody> {
    return systemBody({
      name: this.manifest.name,
      startedAt: this.startedAt,
      listeners: this.listeners.map((l) => ({ name: l.name, ...l.address, plugins: l.config.plugins, auth: l.config.auth })),
      plugins: this.plugins.map((p) => ({
        name: p.plugin.name,
        version: p.plugin.definition.version,
        source: p.plugin.source,
        dependsOn: directDependencies(p.plugin),
        permissions: (p.plugin.definition.permissions ?? []).map((d) => d.name),
        jobs: p.jobs.summary(),
        events: { firstId: p.events.firstId(), lastId: p.events.lastId() },
      })),
      store: { dir: this.manifest.dataDir, sizeBytes: this.store?.sizeBytes() ?? 0, formatVersion: this.store?.formatVersion ?? 0 },
      kernels: this.kernelRunner,
      configuredThreads: this.manifest.kernels.threads,
    });
  }

  private registerRuntimeMetrics(): void {
    const listeners = this.listeners;
    const store = this.store!;
    this.metrics.gauge({
      name: 'tessera_throttle_active',
      help: 'Requests holding a throttle slot, by listener and tier.',
      labelNames: ['listener', 'tier'],
      collect() {
        for (const listener of listeners) {
          for (const tier of ['light', 'standard', 'heavy'] as const) this.set({ listener: listener.name, tier }, listener.throttle.stats(tier).active);
        }
      },
    });
    this.metrics.gauge({
      name: 'tessera_throttle_queue_depth',
      help: 'Requests waiting for a throttle slot, by listener and tier.',
      labelNames: ['listener', 'tier'],
      collect() {
        for (const listener of listeners) {
          for (const tier of ['light', 'standard', 'heavy'] as const) this.set({ listener: listener.name, tier }, listener.throttle.stats(tier).queued);
        }
      },
    });
    this.metrics.gauge({
      name: 'tessera_store_size_bytes',
      help: 'Size of the LMDB data file.',
      collect() {
        this.set(store.sizeBytes());
      },
    });
  }

  /**
   * Run start hooks in dependency order, then bind every listener. With `listen: false` nothing is
   * bound: requests reach the listeners through `HttpListener.fetch` only (tessera-runtime/testing).
   */
  async start(options: { listen?: boolean } = {}): Promise<void> {
    if (this.state !== 'created') throw new Error(`Cannot start an app that is ${this.state}`);
    this.state = 'starting';
    try {
      for (const runtime of this.plugins) {
        runtime.started = true;
        for (const hook of runtime.startHooks) {
          try {
            await hook();
          } catch (cause) {
            const error = new PluginError('plugin_start_failed', runtime.plugin.name, `onStart hook failed: ${(cause as Error)?.message ?? String(cause)}`, {
              cause,
            });
            notePluginSource(error, runtime.plugin.source);
            throw error;
          }
        }
      }
      for (const runtime of this.plugins) await runtime.jobs.start();
      if (options.listen !== false)
        for (const listener of this.listeners) {
          await listener.listen();
          this.log.info({ listener: listener.name, url: listener.address.url, plugins: listener.config.plugins }, 'listening');
          flushLogSync(this.log);
        }
    } catch (err) {
      await this.stop();
      throw err;
    }
    this.state = 'running';
  }

  /**
   * Stop accepting, drain in-flight requests (bounded by limits.shutdownTimeoutMs), stop each
   * plugin's tasks and run its stop hooks in reverse dependency order, then close the store.
   */
  async stop(): Promise<void> {
    if (this.state === 'stopping' || this.state === 'stopped') return;
    this.state = 'stopping';
    const limit = this.manifest.limits.shutdownTimeoutMs;
    const results = await Promise.all(this.listeners.map((l) => l.close(limit)));
    if (results.some((r) => !r.drained)) this.log.warn({ timeoutMs: limit }, 'shutdown timeout: open requests were cut');
    // Jobs stop before any stop hook, so a job's last writes still find its plugin's resources open.
    const stopped = await Promise.all(this.plugins.map((p) => p.jobs.stop(limit)));
    if (stopped.some((done) => !done))
      this.log.warn({ timeoutMs: limit }, 'shutdown timeout: running jobs did not stop; they are marked interrupted at the next start');
    await this.teardown();
    this.state = 'stopped';
  }

  private async teardown(): Promise<void> {
    const limit = this.manifest.limits.shutdownTimeoutMs;
    for (const runtime of [...this.plugins].reverse()) {
      const name = runtime.plugin.name;
      // Each plugin gets the shutdown timeout for its tasks and hooks; a stuck one is logged and
      // left behind so the rest of the deployment still stops and the store still closes.
      const finished = await withTimeout(limit, async () => {
        await runtime.tasks.stopAll();
        if (!runtime.started) return;
        for (const hook of [...runtime.stopHooks].reverse()) {
          try {
            await hook();
          } catch (err) {
            this.log.error({ err, plugin: name }, 'onStop hook failed');
          }
        }
      });
      if (!finished) this.log.error({ plugin: name, timeoutMs: limit }, 'plugin did not stop in time');
    }
    for (const runtime of this.plugins) runtime.events.close();
    await this.outbound?.close();
    if (this.kernelRunner) {
      await this.kernelRunner.close();
      this.kernelRunner = undefined;
    }
    if (this.store) {
      await this.store.close();
      this.store = undefined;
    }
    this.container.dispose?.();
  }

  /** Where each listener is bound: useful with port 0. */
  addresses(): Record<string, { host: string; port: number; url: string }> {
    return Object.fromEntries(this.listeners.map((l) => [l.name, l.address]));
  }

  url(listener: string): string {
    const found = this.listeners.find((l) => l.name === listener);
    if (!found) throw new Error(`No listener named "${listener}"`);
    return found.address.url;
  }
}

/** Set up and start in one call. */
export async function startApp(manifest: ResolvedManifest, options: AppOptions = {}): Promise<App> {
  const app = await App.create(manifest, options);
  await app.start();
  return app;
}

async function withTimeout(ms: number, fn: () => Promise<void>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
    timer.unref();
  });
  try {
    return await Promise.race([fn().then(() => true), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}
