import { describe, it } from 'vitest';
import { databaseScanSuite, knex, reachable } from './database-suite.js';

/** Set by .ci/run, which starts a private MariaDB on this port; the default matches it. */
const url = process.env.TESSERA_TEST_MYSQL_URL ?? 'mysql://tessera:tessera-my-secret@127.0.0.1:53306/tessera';
const parsed = new URL(url);
const available = await reachable(parsed.hostname, Number(parsed.port || 3306));
const how =
  'MariaDB is not running: start it with the "Real database servers" block of .ci/run (apt-get install mariadb-server; mariadb-install-db; mariadbd on 127.0.0.1:53306), or set TESSERA_TEST_MYSQL_URL.';

if (!available && process.env.TESSERA_TEST_DATABASES === 'required') throw new Error(`${how} (TESSERA_TEST_DATABASES=required: CI must run these tests)`);

if (available) {
  const password = decodeURIComponent(parsed.password);
  const secretDb = new URL(url);
  secretDb.pathname = `/${encodeURIComponent(password)}`;
  databaseScanSuite({
    driver: 'mysql',
    connection: url,
    password,
    admin: () => knex({ client: 'mysql2', connection: url, pool: { min: 0, max: 2 } }),
    timestampType: 'datetime(6)',
    roots: [],
    hostPort: { host: parsed.hostname, port: Number(parsed.port || 3306) },
    withPort: (connection, port) => {
      const u = new URL(connection);
      u.port = String(port);
      return u.toString();
    },
    secretInErrorConnection: secretDb.toString(),
  });
} else {
  describe('database scan (mysql)', () => {
    it.skip(how, () => undefined);
  });
}
