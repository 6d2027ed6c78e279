/**
 * Credentials never leave the scanner: not in answers, scan records, events, logs or error
 * messages, including messages a database driver writes. A connection is shown with its secrets
 * replaced by `***`, and any text about it is scrubbed of the secret values themselves.
 */

export const MASK = '***';

const secretKey = /^(password|passwd|pwd|pass|secret|token|api[-_]?key|access[-_]?key|private[-_]?key|key|cert|ca|passphrase|sslpassword)$/i;

/** A URL with its password (and any `password=`-like query parameter) masked; other strings unchanged. */
export function redactUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return value;
  }
  if (!url.host && !url.password) return value;
  if (url.password) url.password = MASK;
  for (const name of [...url.searchParams.keys()]) if (secretKey.test(name)) url.searchParams.set(name, MASK);
  return url.toString().replace(/%2A%2A%2A/g, MASK);
}

/**
 * A connection (string or knex connection object) as it may be shown: secret fields and URL
 * passwords masked, and the secret values masked wherever else they appear (a database named like
 * the password).
 */
export function redactConnection(connection: unknown): unknown {
  const secrets = secretsOf(connection);
  const clean = (value: unknown): unknown => {
    if (typeof value === 'string') return scrub(value, secrets);
    if (Array.isArray(value)) return value.map(clean);
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, clean(v)]));
    return value;
  };
  return clean(redactFields(connection));
}

function redactFields(connection: unknown): unknown {
  if (typeof connection === 'string') return redactUrl(connection);
  if (Array.isArray(connection)) return connection.map(redactFields);
  if (connection && typeof connection === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(connection)) {
      if (secretKey.test(k) && v !== undefined && v !== null && v !== '') out[k] = MASK;
      else if (k === 'connectionString' && typeof v === 'string') out[k] = redactUrl(v);
      else out[k] = typeof v === 'object' ? redactFields(v) : typeof v === 'string' ? redactUrl(v) : v;
    }
    return out;
  }
  return connection;
}

/** The secret values inside a connection, in every spelling a driver might print them. */
export function secretsOf(connection: unknown): string[] {
  const found = new Set<string>();
  const add = (s: string): void => {
    if (s.length < 3) return;
    found.add(s);
    try {
      const decoded = decodeURIComponent(s);
      if (decoded.length >= 3) found.add(decoded);
    } catch {
      // Not percent-encoded.
    }
    found.add(encodeURIComponent(s));
  };
  const visit = (value: unknown, key?: string): void => {
    if (typeof value === 'string') {
      if (key !== undefined && secretKey.test(key)) add(value);
      try {
        const url = new URL(value);
        if (url.password) add(url.password);
        for (const [name, v] of url.searchParams) if (secretKey.test(name)) add(v);
      } catch {
        // Not a URL.
      }
    } else if (Array.isArray(value)) value.forEach((v) => visit(v));
    else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) visit(v, k);
  };
  visit(connection);
  // Longest first, so a secret that contains another is replaced whole.
  return [...found].sort((a, b) => b.length - a.length);
}

/** `text` with every secret value and every `user:password@` of a URL masked. */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) out = out.split(s).join(MASK);
  return out.replace(/(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:)([^\s@/]+)@/gi, `$1${MASK}@`);
}

/** An error's message, scrubbed: what a scan record, an event or a log line may carry. */
export function scrubError(err: unknown, secrets: readonly string[]): string {
  const message = err instanceof Error ? err.message : String(err);
  return scrub(message, secrets);
}
