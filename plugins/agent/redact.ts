/**
 * Removes secrets from text bound for logs, events, errors and the dead-letter queue: the tenant's
 * provider key wherever it appears, and any bearer token or `sk-`-style key.
 */
export function redact(text: string, secrets: ReadonlyArray<string | undefined> = []): string {
  let out = text;
  for (const s of secrets) if (s && s.length >= 4) out = out.split(s).join('[redacted]');
  return out.replace(/(Bearer\s+)[^\s"',]+/gi, '$1[redacted]').replace(/\bsk-[A-Za-z0-9_-]{8,}/g, '[redacted]');
}

/** A deep copy of `value` with every string redacted and keys that name secrets blanked. */
export function redactValue(value: unknown, secrets: ReadonlyArray<string | undefined> = []): unknown {
  if (typeof value === 'string') return redact(value, secrets);
  if (Array.isArray(value)) return value.map((v) => redactValue(v, secrets));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      out[k] = /^(api[-_]?key|authorization|password|secret|token)$/i.test(k) ? '[redacted]' : redactValue(v, secrets);
    }
    return out;
  }
  return value;
}
