import { describe, it } from 'vitest';
import { databaseScanSuite, knex, reachable } from './database-suite.js';

/** Set by .ci/run, which starts a private cluster on this port; the default matches it. */
const url = process.env.TESSERA_TEST_POSTGRES_URL ?? 'postgres://postgres:tessera-pg-secret@127.0.0.1:55432/postgres';
const parsed = new URL(url);
const available = await reachable(parsed.hostname, Number(parsed.port || 5432));
const how =
  'PostgreSQL is not running: start it with the "Real database servers" block of .ci/run (apt-get install postgresql; initdb; pg_ctl start on 127.0.0.1:55432), or set TESSERA_TEST_POSTGRES_URL.';

if (!available && process.env.TESSERA_TEST_DATABASES === 'required') throw new Error(`${how} (TESSERA_TEST_DATABASES=required: CI must run these tests)`);

if (available) {
  const password = decodeURIComponent(parsed.password);
  const secretDb = new URL(url);
  secretDb.pathname = `/${encodeURIComponent(password)}`;
  databaseScanSuite({
    driver: 'postgres',
    connection: url,
    password,
    admin: () => knex({ client: 'pg', connection: url, pool: { min: 0, max: 2 } }),
    timestampType: 'timestamp(6)',
    roots: [],
    hostPort: { host: parsed.hostname, port: Number(parsed.port || 5432) },
    withPort: (connection, port) => {
      const u = new URL(connection);
      u.port = String(port);
      return u.toString();
    },
    secretInErrorConnection: secretDb.toString(),
  });
} else {
  describe('database scan (postgres)', () => {
    it.skip(how, () => undefined);
  });
}
