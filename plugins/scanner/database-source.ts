import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import { errors } from './errors.js';
import { scrub } from './redact.js';
import type { Roots } from './roots.js';

export type Driver = 'sqlite' | 'postgres' | 'mysql' | 'generic_sql';

/** knex client names whose drivers this build ships, by the name a `generic_sql` connection may give. */
const installedClients: Record<string, 'pg' | 'mysql2' | 'better-sqlite3'> = {
  pg: 'pg',
  postgres: 'pg',
  postgresql: 'pg',
  mysql2: 'mysql2',
  'better-sqlite3': 'better-sqlite3',
};

/** PostgreSQL types read as the server writes them, so a watermark keeps its microseconds and a bigint its digits. */
const pgExactTypes = new Set([20, 1082, 1083, 1114, 1184, 1266, 1700]);

function pgTypes() {
  return {
    getTypeParser(oid: number, format?: string) {
      if (pgExactTypes.has(oid)) return (value: string) => value;
      // The driver's own parsers for everything else.
      return (pg.types.getTypeParser as (oid: number, format?: string) => (v: string) => unknown)(oid, format);
    },
  };
}

function urlParts(value: string, driver: Driver): URL {
  try {
    return new URL(value);
  } catch {
    throw errors.invalid_connection({ driver, reason: 'expected a URL such as postgres://user:password@host:5432/db.' });
  }
}

function mysqlConnection(value: string | Record<string, unknown>): Record<string, unknown> {
  const exact = { dateStrings: true, supportBigNumbers: true, bigNumberStrings: true, connectTimeout: 10_000 };
  if (typeof value !== 'string') return { ...value, ...exact };
  const url = urlParts(value, 'mysql');
  if (url.protocol !== 'mysql:' && url.protocol !== 'mariadb:')
    throw errors.invalid_connection({ driver: 'mysql', reason: 'the URL must start with mysql:// or mariadb://.' });
  return {
    host: url.hostname,
    port: url.port ? Number(url.port) : 3306,
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    database: decodeURIComponent(url.pathname.replace(/^\//, '')),
    ...exact,
  };
}

function postgresConnection(value: string | Record<string, unknown>): Record<string, unknown> {
  if (typeof value === 'string') {
    const url = urlParts(value, 'postgres');
    if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:')
      throw errors.invalid_connection({ driver: 'postgres', reason: 'the URL must start with postgres:// or postgresql://.' });
    return { connectionString: value, types: pgTypes(), connectionTimeoutMillis: 10_000 };
  }
  return { ...value, types: pgTypes(), connectionTimeoutMillis: 10_000 };
}

function sqliteConnection(value: string | Record<string, unknown>, roots: Roots): Record<string, unknown> {
  const filename = typeof value === 'string' ? value : typeof value.filename === 'string' ? value.filename : undefined;
  if (!filename) throw errors.invalid_connection({ driver: 'sqlite', reason: 'give the database file path (or {filename}).' });
  // A SQLite database is a file on this machine: it is held to the same roots as file scans, and only read.
  const real = roots.resolve(filename, 'file');
  return { filename: real, options: { readonly: true, fileMustExist: true } };
}

/** The knex configuration of a database scan; throws 400/403 for a connection that cannot fit. */
export function knexConfig(
  driver: Driver,
  connection: string | Record<string, unknown>,
  roots: Roots,
  log: (level: 'warn' | 'error', message: string) => void,
): Knex.Config {
  const common = {
    pool: { min: 0, max: 2 },
    acquireConnectionTimeout: 10_000,
    log: {
      warn: (m: unknown) => log('warn', String(m)),
      error: (m: unknown) => log('error', String(m)),
      deprecate: (m: unknown) => log('warn', String(m)),
      debug: () => undefined,
    },
  } satisfies Knex.Config;
  switch (driver) {
    case 'sqlite':
      return { ...common, client: 'better-sqlite3', connection: sqliteConnection(connection, roots) as Knex.Config['connection'], useNullAsDefault: true };
    case 'postgres':
      return { ...common, client: 'pg', connection: postgresConnection(connection) as Knex.Config['connection'] };
    case 'mysql':
      return { ...common, client: 'mysql2', connection: mysqlConnection(connection) as Knex.Config['connection'] };
    case 'generic_sql': {
      if (typeof connection !== 'object' || connection === null || typeof connection.client !== 'string') {
        throw errors.invalid_connection({ driver, reason: 'give an object naming a knex client, such as {"client": "pg", "connection": "postgres://..."}.' });
      }
      const client = installedClients[connection.client];
      if (!client) throw errors.unsupported_driver({ client: connection.client, available: Object.keys(installedClients).join(', ') });
      const { client: _client, connection: inner, ...rest } = connection as Record<string, unknown>;
      const settings = (inner ?? rest) as string | Record<string, unknown>;
      const as: Driver = client === 'pg' ? 'postgres' : client === 'mysql2' ? 'mysql' : 'sqlite';
      return knexConfig(as, settings, roots, log);
    }
  }
}

export interface TableShape {
  columns: string[];
  primaryKey: string;
}

/** Reads the table's columns and primary key; 400 `table_not_found`, `column_not_found`, `primary_key_required`. */
export async function inspectTable(db: Knex, table: string, watermarkColumn: string, primaryKey: string | undefined): Promise<TableShape> {
  if (!(await db.schema.hasTable(table))) throw errors.table_not_found({ table });
  const columns = Object.keys(await db(table).columnInfo());
  const has = (c: string) => columns.includes(c);
  if (!has(watermarkColumn)) throw errors.column_not_found({ table, column: watermarkColumn });
  let pk = primaryKey;
  if (pk === undefined) {
    const keys = await primaryKeyColumns(db, table);
    if (keys.length !== 1) throw errors.primary_key_required({ table });
    pk = keys[0]!;
  }
  if (!has(pk)) throw errors.column_not_found({ table, column: pk });
  return { columns, primaryKey: pk };
}

async function primaryKeyColumns(db: Knex, table: string): Promise<string[]> {
  const client = (db.client as { config: { client: string } }).config.client;
  const name = table.includes('.') ? table.slice(table.lastIndexOf('.') + 1) : table;
  if (client === 'better-sqlite3') {
    const rows = (await db.raw('select name, pk from pragma_table_info(?) where pk > 0 order by pk', [name])) as Array<{ name: string }>;
    return rows.map((r) => r.name);
  }
  if (client === 'pg') {
    const result = (await db.raw(
      `select a.attname as name from pg_index i join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
       where i.indrelid = ?::regclass and i.indisprimary`,
      [table],
    )) as { rows: Array<{ name: string }> };
    return result.rows.map((r) => r.name);
  }
  const [rows] = (await db.raw(
    `select column_name as name from information_schema.key_column_usage
     where constraint_name = 'PRIMARY' and table_schema = database() and table_name = ? order by ordinal_position`,
    [name],
  )) as [Array<{ name: string }>];
  return rows.map((r) => r.name);
}

/** Opens a knex instance whose log lines and errors never carry the connection's secrets. */
export function openDatabase(config: Knex.Config): Knex {
  return knexFactory(config);
}

/** A row as a document: dates as ISO text, binary as base64, big integers as text. */
export function rowToDocument(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) {
    if (v instanceof Date) out[k] = Number.isNaN(v.getTime()) ? null : v.toISOString();
    else if (Buffer.isBuffer(v)) out[k] = v.toString('base64');
    else if (typeof v === 'bigint') out[k] = v.toString();
    else out[k] = v;
  }
  return out;
}

/** Used by the scan to scrub driver messages. */
export { scrub };
