/**
 * Tenant tokens (Meilisearch's tenant tokens, Typesense's scoped search keys, Algolia's secured
 * keys): a back end signs, without calling the server, a JWT that lets a front end search only
 * some indexes, with a filter it cannot widen. HS256; the signing secret is the lowercase hex
 * SHA-256 of the parent API key, which is what the server stores, so nothing new is kept; the
 * header's `kid` is the parent key's id.
 *
 *   header  {"alg": "HS256", "typ": "JWT", "kid": "<parent key id>"}
 *   claims  {"searchRules": ["logs-*"] | {"logs-*": {"filter": {...}} | null} , "exp"?: <seconds>}
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { coversPattern, indexPatternPattern } from './keys.js';

/** Index pattern -> the filter ANDed with every search on it (null: none). */
export type SearchRules = Record<string, { filter: unknown } | null>;

export interface TenantTokenClaims {
  kid: string;
  rules: SearchRules;
  exp?: number;
}

const segment = /^[A-Za-z0-9_-]+$/;

/** Whether a presented credential has a JWT's shape (three base64url segments). */
export function looksLikeToken(presented: string): boolean {
  const parts = presented.split('.');
  return parts.length === 3 && parts.every((p) => segment.test(p));
}

function decode(part: string): unknown {
  return JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as unknown;
}

/** Header and claims, without checking the signature (to find the parent key), or undefined when malformed. */
export function readToken(token: string): TenantTokenClaims | undefined {
  try {
    const [h, c] = token.split('.');
    const header = decode(h!) as { alg?: unknown; typ?: unknown; kid?: unknown };
    const claims = decode(c!) as { searchRules?: unknown; exp?: unknown };
    if (header?.alg !== 'HS256' || typeof header.kid !== 'string') return undefined;
    const rules = normaliseRules(claims?.searchRules);
    if (!rules) return undefined;
    if (claims.exp !== undefined && (typeof claims.exp !== 'number' || !Number.isFinite(claims.exp))) return undefined;
    return { kid: header.kid, rules, ...(claims.exp !== undefined ? { exp: claims.exp as number } : {}) };
  } catch {
    return undefined;
  }
}

function normaliseRules(raw: unknown): SearchRules | undefined {
  if (Array.isArray(raw)) {
    if (raw.length === 0 || !raw.every((p) => typeof p === 'string' && indexPatternPattern.test(p))) return undefined;
    return Object.fromEntries(raw.map((p: string) => [p, null]));
  }
  if (raw === null || typeof raw !== 'object') return undefined;
  const out: SearchRules = Object.create(null) as SearchRules;
  const entries = Object.entries(raw as Record<string, unknown>);
  if (entries.length === 0) return undefined;
  for (const [pattern, rule] of entries) {
    if (!indexPatternPattern.test(pattern)) return undefined;
    if (rule === null) out[pattern] = null;
    else if (typeof rule === 'object' && !Array.isArray(rule)) {
      const filter = (rule as { filter?: unknown }).filter;
      out[pattern] = filter === undefined || filter === null ? null : { filter };
    } else return undefined;
  }
  return out;
}

/** Whether `token` is signed with the key whose stored hash is `keyHash` (hex). */
export function signatureValid(token: string, keyHash: string): boolean {
  const [h, c, s] = token.split('.');
  const expected = createHmac('sha256', keyHash).update(`${h}.${c}`).digest();
  const sent = Buffer.from(s!, 'base64url');
  return sent.length === expected.length && timingSafeEqual(sent, expected);
}

/** Whether every rule stays within the parent key's index patterns. */
export function rulesWithin(rules: SearchRules, parentIndexes: readonly string[]): boolean {
  return Object.keys(rules).every((p) => coversPattern(parentIndexes, p));
}
