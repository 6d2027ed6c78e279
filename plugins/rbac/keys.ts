import { createHash, randomBytes } from 'node:crypto';
import type { Database } from 'lmdb';
import { base62, idPattern, newId } from './ids.js';

/**
 * API key format, GitHub/Stripe style: a fixed `tsk_` prefix (so secret scanners can find leaked
 * keys), the key's public id, then 32 random bytes in base62. Only the SHA-256 of the whole key is
 * stored: the secret has 256 bits of entropy, so a slow password hash would add nothing.
 */
export const KEY_PREFIX = 'tsk_';
export const SECRET_BYTES = 32;
export const keyPattern = /^tsk_([0-9a-z]{9}[0-9A-Za-z]{7})[0-9A-Za-z]{43}$/;

/** How often lastUsedAt is written per key, at most. */
export const LAST_USED_RESOLUTION_MS = 60_000;

export interface KeyRecord {
  id: string;
  tenant: string;
  /** The user the key acts for: its permissions are its scopes intersected with the user's, live. */
  userId: string;
  name: string;
  /** `tsk_` plus the id: enough to recognise a key in a list or a leak report, useless to call with. */
  prefix: string;
  /** SHA-256 of the whole key, hex. */
  hash: string;
  scopes: string[];
  /**
   * Search indexes the key may reach: names and prefix patterns ending in `*`; `["*"]` for all.
   * Keys stored before index scopes have none: all.
   */
  indexes?: string[];
  /** User id of whoever created it. */
  createdBy: string;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
}

export type KeyState = 'active' | 'expired' | 'revoked';

/** What lists and /hub/me show: never the secret, never the hash. */
export interface KeyView extends Omit<KeyRecord, 'hash'> {
  lastUsedAt: string | null;
  state: KeyState;
}

export function hashKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

export function generateKey(now = Date.now()): { id: string; secret: string; prefix: string; hash: string } {
  const id = newId(now);
  const secret = `${KEY_PREFIX}${id}${base62(randomBytes(SECRET_BYTES))}`;
  return { id, secret, prefix: `${KEY_PREFIX}${id}`, hash: hashKey(secret).toString('hex') };
}

/** The id inside a well-formed key, or undefined. */
export function parseKeyId(presented: string): string | undefined {
  return keyPattern.exec(presented)?.[1];
}

/** An index name, a prefix pattern ending in `*`, or `*` (search's index names: 1-64 of a-z 0-9 _ -). */
export const indexPatternPattern = /^(\*|[a-z0-9][a-z0-9_-]{0,63}\*?)$/;

/** Whether `patterns` reach everything `pattern` reaches (a key cannot grant indexes its creator cannot reach). */
export function coversPattern(patterns: readonly string[], pattern: string): boolean {
  return patterns.some((c) => c === '*' || c === pattern || (c.endsWith('*') && pattern.startsWith(c.slice(0, -1))));
}

export function keyState(record: KeyRecord, now: number): KeyState {
  if (record.revokedAt !== null) return 'revoked';
  if (record.expiresAt !== null && Date.parse(record.expiresAt) <= now) return 'expired';
  return 'active';
}

/**
 * Keys by id (the hot lookup on every request), an index by tenant for lists, and last-use times
 * kept apart so a usage write can never overwrite a concurrent revocation.
 */
export class KeyStore {
  private readonly keys: Database<KeyRecord, string>;
  private readonly byTenant: Database<string, [string, string]>;
  private readonly usage: Database<number, string>;
  private readonly lastUsed = new Map<string, number>();

  constructor(dbs: { keys: Database<KeyRecord, string>; byTenant: Database<string, [string, string]>; usage: Database<number, string> }) {
    this.keys = dbs.keys;
    this.byTenant = dbs.byTenant;
    this.usage = dbs.usage;
  }

  get(id: string): KeyRecord | undefined {
    return idPattern.test(id) ? this.keys.get(id) : undefined;
  }

  /** The id lookup exactly as `get`, without validating the id first (the verifier's fixed path). */
  lookup(id: string): KeyRecord | undefined {
    return this.keys.get(id);
  }

  async create(record: KeyRecord): Promise<void> {
    await this.keys.transaction(() => this.writeInTransaction(record));
  }

  /** For callers that already hold a write transaction (bootstrap). */
  writeInTransaction(record: KeyRecord): void {
    void this.keys.put(record.id, record);
    void this.byTenant.put([record.tenant, record.id], record.userId);
  }

  /** Marks the key revoked (idempotent: a revoked key keeps its first revokedAt). */
  async revoke(id: string, at: string): Promise<KeyRecord | undefined> {
    return this.keys.transaction(() => {
      const record = this.keys.get(id);
      if (!record) return undefined;
      if (record.revokedAt !== null) return record;
      const revoked = { ...record, revokedAt: at };
      void this.keys.put(id, revoked);
      return revoked;
    });
  }

  /** The tenant's keys in creation order, after `afterId`, optionally only one user's. */
  *listTenant(tenant: string, afterId?: string, userId?: string): Generator<KeyRecord> {
    for (const { key, value } of this.byTenant.getRange({ start: [tenant, afterId ?? ''], end: [tenant, '\uffff'] })) {
      const id = key[1];
      if (afterId !== undefined && id <= afterId) continue;
      if (userId !== undefined && value !== userId) continue;
      const record = this.keys.get(id);
      if (record) yield record;
    }
  }

  view(record: KeyRecord, now: number): KeyView {
    const { hash: _hash, ...rest } = record;
    const last = this.lastUsedAt(record.id);
    return { ...rest, indexes: record.indexes ?? ['*'], lastUsedAt: last === undefined ? null : new Date(last).toISOString(), state: keyState(record, now) };
  }

  lastUsedAt(id: string): number | undefined {
    return this.lastUsed.get(id) ?? this.usage.get(id);
  }

  /** Records a use, writing at most once per LAST_USED_RESOLUTION_MS per key. */
  touch(id: string, now: number): void {
    const last = this.lastUsedAt(id);
    if (last !== undefined && now - last < LAST_USED_RESOLUTION_MS) return;
    this.lastUsed.set(id, now);
    void this.usage.put(id, now);
  }
}
