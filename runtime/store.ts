import { statSync } from 'node:fs';
import path from 'node:path';
import { open } from 'lmdb';
// lmdb's ESM declaration file uses `export =`, an error for a plugin compiled with skipLibCheck
// false; its CommonJS one is the same API and valid.
// oxlint-disable-next-line no-duplicate-imports
import type { Database, DatabaseOptions, Key, RootDatabase } from 'lmdb' with { 'resolution-mode': 'require' };
import { DataDirLock } from './data-dir-lock.js';
import { TesseraError } from './errors.js';
import { TenantStore } from './tenant-store.js';

/**
 * The store format this build writes. A data directory written by a newer build (a larger number)
 * is refused rather than misread; an older one is read, and migrated where a later format needs it.
 */
export const STORE_FORMAT_VERSION = 1;

const META_DB = '__tessera_meta';
const FILE_NAME = 'tessera.mdb';

export class StoreError extends TesseraError {
  constructor(code: string, message: string, cause?: unknown) {
    super(code, 500, message, { cause });
    this.name = 'StoreError';
  }
}

export interface StoreOptions {
  readOnly?: boolean;
  /** Upper bound on named databases across all plugins. */
  maxDbs?: number;
}

/**
 * One LMDB environment per data directory. Each plugin works inside its own namespace: its named
 * databases are prefixed with the plugin's name, so two plugins can both have a `docs` database.
 */
export class Store {
  readonly dir: string;
  readonly file: string;
  readonly root: RootDatabase;
  private readonly meta: Database<unknown, string>;
  private readonly lock: DataDirLock | undefined;
  private closed = false;

  private constructor(dir: string, root: RootDatabase, lock: DataDirLock | undefined) {
    this.dir = dir;
    this.lock = lock;
    this.file = path.join(dir, FILE_NAME);
    this.root = root;
    this.meta = root.openDB<unknown, string>({ name: META_DB });
  }

  static open(dir: string, options: StoreOptions = {}): Store {
    let root: RootDatabase;
    // A writer holds the directory's lock for as long as the store is open (store_locked otherwise).
    const lock = options.readOnly ? undefined : DataDirLock.acquire(dir);
    try {
      root = open({
        path: path.join(dir, FILE_NAME),
        maxDbs: options.maxDbs ?? 512,
        readOnly: options.readOnly ?? false,
        // A write promise resolves when its transaction is committed to the memory map, which
        // survives the process dying (kill -9). Power-loss durability needs the fsync too: await
        // `flushed`. Never noSync.
      });
    } catch (cause) {
      lock?.release();
      throw new StoreError('store_open_failed', `Cannot open the LMDB store in ${dir}: ${(cause as Error).message}`, cause);
    }
    const store = new Store(dir, root, lock);
    try {
      store.checkFormat(options.readOnly ?? false);
    } catch (err) {
      lock?.release();
      throw err;
    }
    return store;
  }

  private checkFormat(readOnly: boolean): void {
    const stored = this.meta.get('formatVersion');
    if (stored === undefined) {
      if (!readOnly) this.meta.putSync('formatVersion', STORE_FORMAT_VERSION);
      return;
    }
    if (typeof stored !== 'number' || stored > STORE_FORMAT_VERSION) {
      this.root.close();
      throw new StoreError(
        'store_version_unsupported',
        `The store in ${this.dir} has format version ${String(stored)}, newer than this build of Tessera reads (${STORE_FORMAT_VERSION}). Upgrade Tessera or point --data-dir elsewhere.`,
      );
    }
  }

  get formatVersion(): number {
    return this.meta.get('formatVersion') as number;
  }

  namespace(plugin: string): StoreNamespace {
    return new StoreNamespace(this, plugin, this.meta);
  }

  /** Bytes used by the environment's data file (for the store-size metric). */
  sizeBytes(): number {
    try {
      return statSync(this.file).size;
    } catch {
      return 0;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.root.flushed;
      await this.root.close();
    } finally {
      this.lock?.release();
    }
  }
}

export interface FormatOptions {
  /** The format of data written before this plugin recorded any: it is migrated from there. Default: none (a store with nothing recorded is new). */
  unversioned?: number;
}

/** What `StoreNamespace.format` found and did. */
export interface FormatChange {
  /** The format recorded before the call; undefined on a store with nothing recorded. */
  from: number | undefined;
  /** The format now recorded. */
  to: number;
  /** Whether `migrate` ran. */
  migrated: boolean;
}

export class StoreNamespace {
  readonly plugin: string;
  private readonly store: Store;
  private readonly meta: Database<unknown, string>;
  private readonly dbs = new Map<string, Database<any, any>>();

  constructor(store: Store, plugin: string, meta: Database<unknown, string>) {
    this.store = store;
    this.plugin = plugin;
    this.meta = meta;
  }

  /** Open (creating if needed) the named database `name` inside this plugin's namespace. */
  db<V = unknown, K extends Key = Key>(name = 'default', options: Omit<DatabaseOptions, 'name'> = {}): Database<V, K> {
    const cached = this.dbs.get(name);
    if (cached) return cached as Database<V, K>;
    // ':' can appear in neither plugin names nor database names, so no two namespaces can collide.
    if (!/^[a-z0-9][a-z0-9._-]*$/i.test(name)) {
      throw new StoreError('store_invalid_name', `Database name "${name}" must be letters, digits, ".", "_" or "-".`);
    }
    const db = this.store.root.openDB<V, K>({ ...options, name: `${this.plugin}:${name}` });
    this.dbs.set(name, db);
    return db;
  }

  /**
   * One tenant's view of this namespace: `forTenant(t).db(name)` keys every entry by the tenant, so
   * reads through it see that tenant's data only. `db(name)` itself is the plugin-wide key space:
   * use it for data that belongs to no tenant, and key it by tenant yourself otherwise.
   */
  forTenant(tenant: string): TenantStore {
    return new TenantStore(tenant, (name, options) => this.db(name, options));
  }

  /** Run `fn` in one write transaction across every database of the environment. */
  transaction<T>(fn: () => T): Promise<T> {
    return this.store.root.transaction(fn);
  }

  /**
   * Bring this plugin's stored data to format `version` and record it; call it once in `setup`,
   * before reading data. On a store with nothing recorded, `version` is recorded (the data is new)
   * unless `options.unversioned` says what format data written before any was recorded is in; then
   * that is the starting point. From an older recorded format, `migrate(from)` runs first and
   * `version` is recorded only after it resolved: a migration that throws leaves the old version,
   * so the next start runs it again (`store_migration_failed`). Data in a newer format than
   * `version` is refused (`store_version_unsupported`).
   */
  async format(version: number, migrate?: (from: number) => void | Promise<void>, options: FormatOptions = {}): Promise<FormatChange> {
    if (!Number.isInteger(version) || version < 1) {
      throw new StoreError('store_format_invalid', `Plugin "${this.plugin}" asked for store format ${String(version)}; a format is an integer from 1.`);
    }
    const recorded = this.formatVersion();
    if (recorded !== undefined && recorded > version) {
      throw new StoreError(
        'store_version_unsupported',
        `Plugin "${this.plugin}" data in ${this.store.dir} has format version ${recorded}, newer than this build reads (${version}).`,
      );
    }
    const from = recorded ?? options.unversioned;
    if (from !== undefined && from < version) {
      if (!migrate) {
        throw new StoreError(
          'store_migration_failed',
          `Plugin "${this.plugin}" data in ${this.store.dir} is in format ${from}, this build writes ${version}, and it gives no migration.`,
        );
      }
      try {
        await migrate(from);
      } catch (cause) {
        throw new StoreError(
          'store_migration_failed',
          `Plugin "${this.plugin}" could not migrate its data in ${this.store.dir} from format ${from} to ${version}: ${(cause as Error)?.message ?? String(cause)}. Format ${recorded ?? 'none'} stays recorded; the migration runs again at the next start.`,
          cause,
        );
      }
    }
    if (recorded !== version) await this.meta.put(this.formatKey, version);
    return { from: recorded, to: version, migrated: from !== undefined && from < version };
  }

  /** The format recorded for this plugin's data, undefined when none is (read only; `format` records). */
  formatVersion(): number | undefined {
    const stored = this.meta.get(this.formatKey);
    return typeof stored === 'number' ? stored : undefined;
  }

  private get formatKey(): string {
    return `plugin:${this.plugin}:formatVersion`;
  }

  /** Resolves once every write so far is synced to disk, not just committed. */
  get flushed(): Promise<boolean> {
    return this.store.root.flushed;
  }
}
