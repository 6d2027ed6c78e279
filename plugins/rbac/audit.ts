import type { Database } from 'lmdb';

export const auditActions = [
  'bootstrap',
  'user.created',
  'user.updated',
  'user.roles_changed',
  'role.created',
  'key.created',
  'key.revoked',
  'auth.failed',
  'auth.denied',
  'auth.blocked',
] as const;

export type AuditAction = (typeof auditActions)[number];

export interface AuditActor {
  userId: string;
  userName: string;
  keyId: string;
}

export interface AuditEntry {
  /** Increases with every entry across the store; the list cursor. */
  id: string;
  at: string;
  /** `null`: the system partition (failures no tenant can be blamed for, address blocks). */
  tenant: string | null;
  action: AuditAction;
  actor: AuditActor | null;
  target: { type: 'user' | 'role' | 'key'; id: string } | null;
  ip: string | null;
  requestId: string | null;
  details: Record<string, unknown>;
}

export type AuditInput = Omit<AuditEntry, 'id' | 'at' | 'target' | 'ip' | 'requestId' | 'details'> &
  Partial<Pick<AuditEntry, 'target' | 'ip' | 'requestId' | 'details'>>;

const SYSTEM = '';
const SEQ_KEY = 'auditSeq';

/**
 * Append-only, keyed by tenant then sequence number, so a tenant's page is one range read, newest
 * first. The sequence number is allocated in the same transaction as the entry.
 */
export class AuditLog {
  private readonly db: Database<AuditEntry, [string, number]>;
  private readonly meta: Database<unknown, string>;

  constructor(db: Database<AuditEntry, [string, number]>, meta: Database<unknown, string>) {
    this.db = db;
    this.meta = meta;
  }

  async append(input: AuditInput, now = new Date()): Promise<AuditEntry> {
    return this.db.transaction(() => this.appendInTransaction(input, now));
  }

  /** For callers that already hold a write transaction (bootstrap). */
  appendInTransaction(input: AuditInput, now = new Date()): AuditEntry {
    const seq = ((this.meta.get(SEQ_KEY) as number | undefined) ?? 0) + 1;
    const entry: AuditEntry = {
      id: String(seq),
      at: now.toISOString(),
      tenant: input.tenant,
      action: input.action,
      actor: input.actor,
      target: input.target ?? null,
      ip: input.ip ?? null,
      requestId: input.requestId ?? null,
      details: input.details ?? {},
    };
    void this.meta.put(SEQ_KEY, seq);
    void this.db.put([input.tenant ?? SYSTEM, seq], entry);
    return entry;
  }

  /** Newest first; `before` is the `id` of the last entry of the previous page. */
  page(tenant: string | null, options: { limit: number; before?: number; action?: AuditAction }): { entries: AuditEntry[]; nextCursor: string | null } {
    const partition = tenant ?? SYSTEM;
    const entries: AuditEntry[] = [];
    let more = false;
    const range = this.db.getRange({ start: [partition, (options.before ?? Number.MAX_SAFE_INTEGER) - 1], end: [partition, 0], reverse: true });
    for (const { value } of range) {
      if (options.action !== undefined && value.action !== options.action) continue;
      if (entries.length === options.limit) {
        more = true;
        break;
      }
      entries.push(value);
    }
    return { entries, nextCursor: more ? entries[entries.length - 1]!.id : null };
  }
}
