import type { Database, DatabaseOptions, Key, RangeOptions } from 'lmdb' with { 'resolution-mode': 'require' };

/** A key inside a tenant's view: a scalar or an array (the tenant is put in front of it). */
export type TenantKey = string | number | boolean | Array<string | number | boolean | null>;

/**
 * One tenant's view of a named database: every key is stored as `[tenant, ...key]`, and reads see
 * only that tenant's entries, so a handler working through it cannot reach another tenant's data
 * by forgetting a filter. Tenant ids never contain NUL, which bounds the range.
 */
export class TenantDatabase<V = unknown, K extends TenantKey = TenantKey> {
  readonly tenant: string;
  private readonly db: Database<V, Key>;

  constructor(db: Database<V, Key>, tenant: string) {
    if (tenant === '' || tenant.includes('\u0000')) throw new Error(`Invalid tenant id ${JSON.stringify(tenant)}`);
    this.db = db;
    this.tenant = tenant;
  }

  private full(key: K): Key {
    return (Array.isArray(key) ? [this.tenant, ...key] : [this.tenant, key]) as Key;
  }

  private local(key: Key): K {
    const parts = (key as unknown[]).slice(1);
    return (parts.length === 1 && !Array.isArray(parts[0]) ? parts[0] : parts) as K;
  }

  get(key: K): V | undefined {
    return this.db.get(this.full(key));
  }

  doesExist(key: K): boolean {
    return this.db.doesExist(this.full(key));
  }

  put(key: K, value: V): Promise<boolean> {
    return this.db.put(this.full(key), value);
  }

  remove(key: K): Promise<boolean> {
    return this.db.remove(this.full(key));
  }

  /** This tenant's entries in key order; `start`/`end` are keys of the view. */
  *getRange(options: { start?: K; end?: K; limit?: number; reverse?: boolean } = {}): IterableIterator<{ key: K; value: V }> {
    const low: Key = options.start === undefined ? [this.tenant] : this.full(options.start);
    const high: Key = options.end === undefined ? [`${this.tenant}\u0000`] : this.full(options.end);
    const range: RangeOptions = options.reverse ? { start: high, end: low, reverse: true } : { start: low, end: high };
    if (options.limit !== undefined) range.limit = options.limit;
    for (const { key, value } of this.db.getRange(range)) {
      // A reverse range from the open upper bound may start on the bound itself: skip anything not this tenant's.
      if ((key as unknown[])[0] !== this.tenant) continue;
      yield { key: this.local(key), value };
    }
  }

  getCount(): number {
    return this.db.getCount({ start: [this.tenant], end: [`${this.tenant}\u0000`] });
  }
}

/** `ctx.store.forTenant(t)`: named databases as seen by one tenant. */
export class TenantStore {
  readonly tenant: string;
  private readonly open: (name: string, options: Omit<DatabaseOptions, 'name'>) => Database<any, Key>;

  constructor(tenant: string, open: (name: string, options: Omit<DatabaseOptions, 'name'>) => Database<any, Key>) {
    this.tenant = tenant;
    this.open = open;
  }

  db<V = unknown, K extends TenantKey = TenantKey>(name = 'default', options: Omit<DatabaseOptions, 'name'> = {}): TenantDatabase<V, K> {
    return new TenantDatabase<V, K>(this.open(name, options), this.tenant);
  }
}
