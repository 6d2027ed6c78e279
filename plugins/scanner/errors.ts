import { defineErrors } from 'tessera-runtime/plugin';

/** Every error the scanner raises (docs/errors.md is generated from this table). */
export const errors = defineErrors({
  scan_roots_not_configured: {
    status: 403,
    message: 'No scan roots are configured: set plugins.scanner.options.roots in the manifest to the folders that may be scanned.',
    when: 'A folder, file or SQLite scan was asked for and the scanner has no `roots` option.',
  },
  path_not_allowed: {
    status: 403,
    message: 'Path "{path}" is not under a configured scan root.',
    when: 'The path (after resolving symlinks) is outside every folder in the `roots` option. The search plugin raises the same code for image paths (docs/image-metadata.md): no `mediaRoot` configured, or a path outside it after `..` and symlinks are resolved.',
  },
  path_not_found: {
    status: 400,
    message: 'Path "{path}" does not exist or is not a {kind}.',
    when: 'The folder or file to scan does not exist, or is a file where a folder is expected (or the reverse).',
  },
  engine_url_not_allowed: {
    status: 403,
    message: 'engineUrl "{url}" is refused by the egress policy ({reason}).',
    when: '`engineUrl` or `bulkUrl` names an address the egress policy refuses (private or loopback without the `allowPrivateAddresses` option, credentials in the URL).',
  },
  scan_not_found: { status: 404, message: 'No scan "{id}".', when: "No scan of the caller's tenant has that id." },
  scan_already_active: {
    status: 409,
    message: 'Scan "{id}" already feeds index "{index}" from this source; stop it first.',
    when: 'A queued, running or watching scan already reads the same source into the same index.',
  },
  unsupported_driver: {
    status: 400,
    message: 'Database client "{client}" is not available; use one of {available}.',
    when: '`generic_sql` names a knex client whose driver is not installed.',
  },
  invalid_connection: {
    status: 400,
    message: 'Invalid connection for driver "{driver}": {reason}',
    when: 'The `connection` does not fit the driver (a URL for postgres/mysql, a file path for sqlite, an object with `client` for generic_sql).',
  },
  table_not_found: {
    status: 400,
    message: 'Table "{table}" does not exist in the database.',
    when: 'The database scan names a table the database does not have.',
  },
  column_not_found: {
    status: 400,
    message: 'Table "{table}" has no column "{column}".',
    when: 'The `watermarkColumn` or `primaryKey` is not a column of the table.',
  },
  primary_key_required: {
    status: 400,
    message: 'Table "{table}" has no single-column primary key; name one with "primaryKey".',
    when: "The table's primary key cannot be found (or has several columns) and the request gives none.",
  },
  source_unreachable: {
    status: 502,
    message: 'The source could not be reached: {reason}',
    when: 'Recorded on a scan (never answered by POST) when the database or remote engine cannot be reached.',
  },
  engine_rejected: {
    status: 502,
    message: 'The engine at {url} answered {status}: {reason}',
    when: 'Recorded on a scan when the remote engine (`engineUrl`) refuses a write or an index creation.',
  },
});
