/**
 * Browser sessions: a page cannot keep an API key safely, and an `EventSource` cannot send one,
 * so a user signs in once with a key (or a user name and password) and the browser holds an HttpOnly cookie naming a session
 * kept here. The cookie holds only a random id; the store keeps its SHA-256, so a copy of the
 * store does not sign anyone in. Each session carries a CSRF token that state-changing requests
 * authenticated by the cookie must echo in `x-csrf-token`.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Database } from 'lmdb';

export const SESSION_COOKIE = 'tessera_session';

export interface SessionRecord {
  /** The key the browser signed in with; `null` when it signed in with a user name and password. */
  keyId: string | null;
  tenant: string;
  userId: string;
  csrf: string;
  createdAt: string;
  expiresAt: string;
  lastSeenAt: string;
}

export interface SessionOptions {
  /** Absolute lifetime. */
  ttlSeconds: number;
  /** Ended after this long without a request. */
  idleSeconds: number;
}

export type SessionLookup = { ok: true; record: SessionRecord } | { ok: false; reason: 'unknown' | 'expired' };

const hashOf = (id: string): string => createHash('sha256').update(id).digest('hex');
/** Requests that change nothing: no CSRF token needed. */
export const safeMethods: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The session id the request's cookies carry, if any. */
export function sessionIdFrom(headers: Headers): string | undefined {
  const cookie = headers.get('cookie');
  if (!cookie) return undefined;
  for (const part of cookie.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) {
      const value = part.slice(eq + 1).trim();
      return /^[A-Za-z0-9_-]{43}$/.test(value) ? value : undefined;
    }
  }
  return undefined;
}

export function csrfMatches(record: SessionRecord, sent: string | null): boolean {
  if (sent === null) return false;
  const a = Buffer.from(record.csrf);
  const b = Buffer.from(sent);
  return a.length === b.length && timingSafeEqual(a, b);
}

export class SessionStore {
  private created = 0;

  constructor(
    private readonly db: Database<SessionRecord, string>,
    readonly options: SessionOptions,
  ) {}

  async create(key: { id: string | null; tenant: string; userId: string }, now = Date.now()): Promise<{ id: string; record: SessionRecord }> {
    const id = randomBytes(32).toString('base64url');
    const at = new Date(now).toISOString();
    const record: SessionRecord = {
      keyId: key.id,
      tenant: key.tenant,
      userId: key.userId,
      csrf: randomBytes(32).toString('base64url'),
      createdAt: at,
      expiresAt: new Date(now + this.options.ttlSeconds * 1000).toISOString(),
      lastSeenAt: at,
    };
    await this.db.put(hashOf(id), record);
    if (++this.created % 100 === 0) void this.prune(now);
    return { id, record };
  }

  lookup(id: string, now = Date.now()): SessionLookup {
    const record = this.db.get(hashOf(id));
    if (!record) return { ok: false, reason: 'unknown' };
    if (Date.parse(record.expiresAt) <= now || Date.parse(record.lastSeenAt) + this.options.idleSeconds * 1000 <= now) {
      void this.db.remove(hashOf(id));
      return { ok: false, reason: 'expired' };
    }
    // Idle time counts from the last request; written at most once a minute, or a tenth of the idle
    // timeout when that is shorter, so a session in steady use never idles out between two writes.
    if (now - Date.parse(record.lastSeenAt) > Math.min(60_000, this.options.idleSeconds * 100)) {
      void this.db.put(hashOf(id), { ...record, lastSeenAt: new Date(now).toISOString() });
    }
    return { ok: true, record };
  }

  async remove(id: string): Promise<void> {
    await this.db.remove(hashOf(id));
  }

  /** Drop every session of a key (revoked) or of all keys of a user (disabled). */
  async removeWhere(match: (record: SessionRecord) => boolean): Promise<number> {
    let n = 0;
    for (const { key, value } of this.db.getRange()) {
      if (match(value)) {
        await this.db.remove(key);
        n++;
      }
    }
    return n;
  }

  /** Remove expired sessions (every 100 sign-ins). */
  async prune(now = Date.now()): Promise<number> {
    return this.removeWhere((r) => Date.parse(r.expiresAt) <= now || Date.parse(r.lastSeenAt) + this.options.idleSeconds * 1000 <= now);
  }

  /** `Set-Cookie` for a new session, and for ending one. */
  cookie(id: string, secure: boolean): string {
    return `${SESSION_COOKIE}=${id}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${this.options.ttlSeconds}${secure ? '; Secure' : ''}`;
  }

  clearCookie(secure: boolean): string {
    return `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0${secure ? '; Secure' : ''}`;
  }
}
