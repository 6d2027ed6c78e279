/**
 * The runtime's error codes in one table. docs/errors.md is generated from this list and from each
 * plugin's `errorCodes`, so a code cannot exist without its documentation line.
 */
export interface ErrorCodeDoc {
  code: string;
  status: number;
  when: string;
}

export const httpErrorCodes: ErrorCodeDoc[] = [
  {
    code: 'invalid_request',
    status: 400,
    when: 'The request is not HTTP/1.1 at all, or a path parameter has malformed percent-encoding (`details.param` names it).',
  },
  {
    code: 'headers_too_large',
    status: 431,
    when: "The request headers exceed Node's limit (16 KiB in all); answered before any route runs, with `connection: close`.",
  },
  { code: 'request_timeout', status: 408, when: 'The request headers did not arrive in time.' },
  {
    code: 'invalid_utf8',
    status: 400,
    when: 'The request body is not valid UTF-8; `details.offset` is the first bad byte. Nothing is stored (bytes are never replaced with U+FFFD). In a bulk stream, per line in `errors[]`: that line fails alone.',
  },
  { code: 'invalid_json', status: 400, when: 'The request body is not valid JSON (or an NDJSON line is not).' },
  {
    code: 'validation_failed',
    status: 400,
    when: 'The body, query or parameters do not match the route schema; `details.issues` lists each bad field path with what was expected.',
  },
  { code: 'missing_api_key', status: 401, when: 'The route needs a credential and none was sent (`x-api-key` or `Authorization: Bearer`).' },
  { code: 'invalid_api_key', status: 401, when: 'The credential is unknown, expired or revoked (the answer does not say which).' },
  { code: 'permission_denied', status: 403, when: 'The credential lacks the permission the route declares; `details.permission` names it.' },
  {
    code: 'egress_denied',
    status: 403,
    when: 'An outbound call to a destination an API caller chose (a crawl seed, a webhook, a remote image) was refused by the egress policy: not http(s), credentials in the URL, a loopback/private/link-local address (checked after DNS and on every redirect), or too many redirects; `details.reason` says which.',
  },
  {
    code: 'host_not_allowed',
    status: 403,
    when: 'The `Host` header names a host the listener does not answer (`allowedHosts`; on loopback only localhost, 127.0.0.1 and [::1] by default): DNS-rebinding protection.',
  },
  {
    code: 'origin_not_allowed',
    status: 403,
    when: "On a listener with auth off, the request carries an `Origin` other than the listener's own (a cross-site request from a browser).",
  },
  { code: 'route_not_found', status: 404, when: 'No route on this listener matches the path.' },
  { code: 'method_not_allowed', status: 405, when: 'The path exists with other methods; the `Allow` header lists them.' },
  {
    code: 'body_too_large',
    status: 413,
    when: 'The body exceeds the route or listener limit; detected from `Content-Length` or while streaming, before the body is read whole.',
  },
  { code: 'unsupported_media_type', status: 415, when: 'The `Content-Type` is not one the route accepts; `details.accepted` lists them.' },
  {
    code: 'invalid_schedule',
    status: 400,
    when: "A schedule's cadence is wrong: both or neither of `cron` and `interval`, an invalid cron expression, an interval that is not `<n>ms|s|m|h|d` or is under 1s, an unknown time zone; `details.issues` says which.",
  },
  { code: 'job_not_found', status: 404, when: "No job with that id (in the caller's tenant)." },
  {
    code: 'throttled',
    status: 429,
    when: "The route's throttle tier has no free slot and a full queue, or the request waited in the queue longer than the tier's `maxWaitMs` (`details.waitedMs`); retry after `Retry-After` seconds.",
  },
  {
    code: 'client_closed_request',
    status: 499,
    when: "Logged only: the client left while its request waited for a throttle slot or before its handler ran, so the work was skipped (nginx's 499).",
  },
  { code: 'upstream_unreachable', status: 502, when: 'An outbound call could not connect or was cut (DNS failure, refused connection).' },
  { code: 'upstream_too_large', status: 502, when: 'An outbound call answered more than its byte limit.' },
  { code: 'upstream_timeout', status: 504, when: 'An outbound call did not finish within its time limit.' },
  { code: 'internal_error', status: 500, when: 'An unexpected failure; `details.requestId` matches the logged stack trace. No stack reaches the client.' },
  {
    code: 'shutting_down',
    status: 503,
    when: 'The process is draining after SIGTERM/SIGINT and accepts no new work. A bulk stream cut by the drain answers it with `details.interrupted: true`, `linesRead` and the results of the lines it applied.',
  },
];

export const startupErrorCodes: ErrorCodeDoc[] = [
  { code: 'manifest_not_found', status: 0, when: 'The manifest file does not exist or cannot be read.' },
  { code: 'manifest_parse_error', status: 0, when: 'The manifest is not valid JSON; the message gives line and column.' },
  {
    code: 'manifest_invalid',
    status: 0,
    when: 'The manifest does not match its schema (unknown key, wrong type, duplicate key, a listener naming an unknown plugin); the message names the file, the JSON path and what was expected.',
  },
  { code: 'plugin_module_not_found', status: 0, when: "A plugin's module (built-in name, path or package) cannot be found." },
  { code: 'plugin_invalid', status: 0, when: 'A plugin module does not default-export a `definePlugin()` object with `name`, `version` and `setup`.' },
  { code: 'plugin_name_mismatch', status: 0, when: 'The manifest key differs from the `name` the plugin module declares.' },
  { code: 'plugin_duplicate', status: 0, when: "The manifest's `plugins` object names one plugin twice (JSON would silently keep the last)." },
  { code: 'plugin_dependency_missing', status: 0, when: 'A plugin `dependsOn` a plugin the manifest does not load.' },
  { code: 'plugin_dependency_version', status: 0, when: 'A dependency is loaded but its version does not satisfy the declared range.' },
  { code: 'plugin_dependency_cycle', status: 0, when: 'Plugins depend on each other in a cycle; the message lists it.' },
  { code: 'plugin_options_invalid', status: 0, when: "A plugin's `options` fail its schema; `details.issues` gives each option path." },
  { code: 'plugin_setup_failed', status: 0, when: "A plugin's `setup` threw; the cause is attached." },
  { code: 'plugin_start_failed', status: 0, when: "A plugin's `onStart` hook threw; plugins already started are stopped again." },
  {
    code: 'plugin_route_conflict',
    status: 0,
    when: 'Two routes would answer the same method and path on one listener (patterns differing only in parameter names count as the same). Raised while serving, for a route added at run time, it is a 409.',
  },
  {
    code: 'plugin_permission_undeclared',
    status: 0,
    when: 'A route requires a permission that no loaded plugin declares in its `permissions` (routes added while serving are refused the same way).',
  },
  {
    code: 'plugin_permission_conflict',
    status: 0,
    when: 'Two plugins declare the same permission; a permission belongs to one plugin, and the others use it.',
  },
  {
    code: 'plugin_metric_conflict',
    status: 0,
    when: 'Two plugins (or one plugin twice) register a metric of the same name; the message and `details` name both plugins.',
  },
  {
    code: 'plugin_name_conflict',
    status: 0,
    when: 'A manifest entry loads a module (a path or package) whose plugin takes a built-in plugin\'s name; set `"override": true` on the entry to replace the built-in on purpose.',
  },
  { code: 'plugin_route_invalid', status: 0, when: 'A route declares both `body` (JSON parsed by the runtime) and `accepts` (raw body read by the handler).' },
  { code: 'auth_provider_missing', status: 0, when: '`auth.provider` names a plugin that is not loaded or registered no authenticator.' },
  { code: 'listener_insecure', status: 0, when: 'A listener binds a non-loopback host while auth is off for it.' },
  { code: 'listener_port_in_use', status: 0, when: "The listener's port is taken; Tessera exits 1 instead of moving to another port." },
  { code: 'listener_failed', status: 0, when: 'The listener could not bind for another reason (permission, bad address).' },
  { code: 'store_version_unsupported', status: 0, when: 'The data directory was written by a newer Tessera whose store format this build cannot read.' },
  {
    code: 'store_migration_failed',
    status: 0,
    when: "A plugin's `ctx.store.format(version, migrate)` found older data and its migration threw (or it gave none); the old format stays recorded and the migration runs again at the next start.",
  },
  { code: 'store_format_invalid', status: 0, when: 'A plugin asked `ctx.store.format` for a format that is not an integer from 1.' },
  { code: 'store_invalid_name', status: 0, when: 'A plugin asked for a database name with characters other than letters, digits, ".", "_" and "-".' },
  { code: 'store_locked', status: 0, when: 'Another process holds the data directory (`tessera.lock`); the message names its pid. Tessera exits 1.' },
  { code: 'store_open_failed', status: 0, when: 'The LMDB environment could not be opened (permissions, disk, lock).' },
];
