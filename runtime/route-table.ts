import { addRoute, createRouter, findRoute, removeRoute, type RouterContext } from 'rou3';

export interface RouteMatch<T> {
  route: T;
  params: Record<string, string>;
}

/**
 * Patterns that differ only in parameter names match the same requests (`/kv/:key`, `/kv/:id`):
 * they are one route as far as conflicts and 405 answers go.
 */
export function routeShape(pattern: string): string {
  return pattern.replace(/\*\*:[^/]+/g, '**').replace(/:[^/]+/g, ':');
}

export type LookupResult<T> = { kind: 'found'; match: RouteMatch<T> } | { kind: 'method_not_allowed'; allow: string[] } | { kind: 'not_found' };

/**
 * A listener's routes. Routes can be added and removed while serving (the workflow plugin turns
 * stored workflows into routes), and a path known under other methods answers 405 with `Allow`.
 */
export class RouteTable<T> {
  private readonly byMethod: RouterContext<T> = createRouter<T>();
  private readonly byPath: RouterContext<Set<string>> = createRouter<Set<string>>();
  private readonly methodsByShape = new Map<string, Set<string>>();
  private readonly entries = new Map<string, { pattern: string; route: T }>();

  /** The route already answering `method` on requests that `pattern` would match, if any. */
  conflict(method: string, pattern: string): T | undefined {
    return this.entries.get(`${method} ${routeShape(pattern)}`)?.route;
  }

  /** Add a route; throws if `conflict()` would have found one. */
  add(method: string, pattern: string, route: T): void {
    const shape = routeShape(pattern);
    const key = `${method} ${shape}`;
    if (this.entries.has(key)) throw new Error(`${method} ${pattern} is already routed`);
    addRoute(this.byMethod, method, pattern, route);
    this.entries.set(key, { pattern, route });
    let methods = this.methodsByShape.get(shape);
    if (!methods) {
      methods = new Set();
      this.methodsByShape.set(shape, methods);
      addRoute(this.byPath, '', pattern, methods);
    }
    methods.add(method);
  }

  remove(method: string, pattern: string): boolean {
    const shape = routeShape(pattern);
    const entry = this.entries.get(`${method} ${shape}`);
    if (!entry || entry.pattern !== pattern) return false;
    this.entries.delete(`${method} ${shape}`);
    removeRoute(this.byMethod, method, pattern);
    const methods = this.methodsByShape.get(shape);
    if (methods) {
      methods.delete(method);
      if (methods.size === 0) {
        this.methodsByShape.delete(shape);
        removeRoute(this.byPath, '', pattern);
      }
    }
    return true;
  }

  /**
   * The route answering `method` on `path` (a HEAD request falls back to GET), as the router's own
   * match: no wrapper per request. `params` is absent for a pattern without parameters.
   */
  find(method: string, path: string): { data: T; params?: Record<string, string> } | undefined {
    return findRoute(this.byMethod, method, path) ?? (method === 'HEAD' ? findRoute(this.byMethod, 'GET', path) : undefined);
  }

  /** The methods `path` answers to (with HEAD where GET is), sorted; undefined if none. */
  allowed(path: string): string[] | undefined {
    const other = findRoute(this.byPath, '', path);
    if (!other || other.data.size === 0) return undefined;
    const allow = [...other.data];
    if (allow.includes('GET') && !allow.includes('HEAD')) allow.push('HEAD');
    return allow.sort();
  }

  lookup(method: string, path: string): LookupResult<T> {
    const found = this.find(method, path);
    if (found) return { kind: 'found', match: { route: found.data, params: (found.params ?? {}) as Record<string, string> } };
    const allow = this.allowed(path);
    return allow ? { kind: 'method_not_allowed', allow } : { kind: 'not_found' };
  }

  list(): T[] {
    return [...this.entries.values()].map((e) => e.route);
  }
}
