import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from '../../helpers/app.js';
import { databaseScanSuite, knex } from './database-suite.js';

const root = tempDir('tessera-scan-sqlite-');
mkdirSync(root, { recursive: true });
const file = path.join(root, 'birds.sqlite');

databaseScanSuite({
  driver: 'sqlite',
  connection: file,
  admin: () => knex({ client: 'better-sqlite3', connection: { filename: file }, useNullAsDefault: true }),
  timestampType: 'text',
  roots: [root],
});
