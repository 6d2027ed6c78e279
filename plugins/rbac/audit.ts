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
  /** `null` when the actor signed in with a password. */
  keyId: string | null;
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

/** A refused request (`auth.failed`, `auth.denied`): aggregated per key, permission and route per minute. */
export interface DeniedInput extends AuditInput {
  action: 'auth.failed' | 'auth.denied';
  details: { method: string; path: string; permission: string; route?: string; reason?: string } & Record<string, unknown>;
}

export interface AuditRetention {
  /** Entries older than this are removed. */
  retentionDays: number;
  /** Beyond this many entries the oldest are removed. */
  maxEntries: number;
}

/** Stored request paths are cut here: a denied request cannot make its entry as large as its URL. */
export const MAX_AUDIT_PATH = 512;
const SYSTEM = '';
const SEQ_KEY = 'auditSeq';
const COUNT_KEY = 'auditCount';
const ORDER_KEY = 'auditOrderVersion';
/** Entries removed per pruning step; a step runs every PRUNE_EVERY appends, and at start. */
const PRUNE_BATCH = 500;
const PRUNE_EVERY = 256;
/** Open aggregates kept in memory; past it the oldest close (a later denial starts a new entry). */
const MAX_OPEN_AGGREGATES = 10_000;

function cut(path: string): string {
  return path.length > MAX_AUDIT_PATH ? `${path.slice(0, MAX_AUDIT_PATH)}…` : path;
}

/**
 * Keyed by tenant then sequence number, so a tenant's page is one range read, newest first; the
 * sequence number is allocated in the same transaction as the entry. A second table orders every
 * entry by sequence number alone, so retention removes the oldest entries of all tenants without
 * a scan. Refused requests are aggregated: one entry per key (or address, for unknown keys),
 * permission and route per minute, counting them; so a flood of refusals costs one entry a
 * minute, not one per request.
 */
export class AuditLog {
  private readonly open = new Map<string, { minute: number; key: [string, number]; entry: AuditEntry }>();
  private readonly chains = new Map<string, Promise<void>>();
  private appendsSincePrune = 0;
  private pruning?: Promise<number>;

  constructor(
    private readonly db: Database<AuditEntry, [string, number]>,
    private readonly meta: Database<unknown, string>,
    /** sequence number -> partition. */
    private readonly order: Database<string, number>,
    private readonly retention: AuditRetention = { retentionDays: 90, maxEntries: 1_000_000 },
  ) {}

  /** Entries stored. */
  size(): number {
    return (this.meta.get(COUNT_KEY) as number | undefined) ?? 0;
  }

  /** Builds the order table for a log written before it existed, then prunes. Run at start. */
  async start(): Promise<void> {
    if (this.meta.get(ORDER_KEY) !== 1) {
      await this.db.transaction(() => {
        let count = 0;
        for (const { key } of this.db.getRange()) {
          void this.order.put(key[1], key[0]);
          count++;
        }
        void this.meta.put(COUNT_KEY, count);
        void this.meta.put(ORDER_KEY, 1);
      });
    }
    while ((await this.prune()) === PRUNE_BATCH);
  }

  async append(input: AuditInput, now = new Date()): Promise<AuditEntry> {
    const entry = await this.db.transaction(() => this.appendInTransaction(input, now));
    this.afterAppend();
    return entry;
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
    const partition = input.tenant ?? SYSTEM;
    void this.meta.put(SEQ_KEY, seq);
    void this.meta.put(COUNT_KEY, this.size() + 1);
    void this.db.put([partition, seq], entry);
    void this.order.put(seq, partition);
    return entry;
  }

  /**
   * A refused request. Within the same minute, a refusal of the same key (or, without one, address),
   * action, permission, route and reason adds to the open entry's `details.count` and `lastAt`
   * instead of appending: the entry keeps the first request's id, path and address.
   */
  recordDenied(input: DeniedInput, now = new Date()): Promise<AuditEntry> {
    const partition = input.tenant ?? SYSTEM;
    const actor = input.actor ? (input.actor.keyId ?? `user:${input.actor.userId}`) : undefined;
    const who = actor ?? (input.target ? `${input.target.type}:${input.target.id}` : `ip:${input.ip ?? ''}`);
    const { method, path, permission, route, reason } = input.details;
    const group = JSON.stringify([partition, input.action, who, method, permission, route ?? path, reason ?? null]);
    // One at a time per group: concurrent refusals must find the entry the first one made.
    const run = (this.chains.get(group) ?? Promise.resolve()).then(() => this.recordInGroup(group, partition, input, now));
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    this.chains.set(group, tail);
    void tail.then(() => {
      if (this.chains.get(group) === tail) this.chains.delete(group);
    });
    return run;
  }

  private async recordInGroup(group: string, partition: string, input: DeniedInput, now: Date): Promise<AuditEntry> {
    const { path, route } = input.details;
    const minute = Math.floor(now.getTime() / 60_000);
    const open = this.open.get(group);
    if (open && open.minute === minute) {
      const count = (open.entry.details.count as number) + 1;
      open.entry = { ...open.entry, details: { ...open.entry.details, count, lastAt: now.toISOString() } };
      // Still stored unless retention removed it meanwhile: then it is not brought back.
      if (this.db.get(open.key) !== undefined) {
        await this.db.put(open.key, open.entry);
        return open.entry;
      }
    }
    const details = { ...input.details, path: cut(path), ...(route !== undefined ? { route } : {}), count: 1 };
    const entry = await this.append({ ...input, details }, now);
    this.open.delete(group);
    this.open.set(group, { minute, key: [partition, Number(entry.id)], entry });
    for (const [k, v] of this.open) {
      if (this.open.size <= MAX_OPEN_AGGREGATES && v.minute >= minute - 1) break;
      this.open.delete(k);
    }
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

  /** One step of retention: removes up to PRUNE_BATCH of the oldest entries that are too old or too many. */
  prune(now = Date.now()): Promise<number> {
    this.pruning ??= this.pruneStep(now).finally(() => (this.pruning = undefined));
    return this.pruning;
  }

  private afterAppend(): void {
    if (++this.appendsSincePrune < PRUNE_EVERY && this.size() <= this.retention.maxEntries) return;
    this.appendsSincePrune = 0;
    void this.prune().catch(() => undefined);
  }

  private async pruneStep(now: number): Promise<number> {
    const cutoff = new Date(now - this.retention.retentionDays * 86_400_000).toISOString();
    return this.db.transaction(() => {
      let count = this.size();
      let removed = 0;
      for (const { key: seq, value: partition } of this.order.getRange({ limit: PRUNE_BATCH })) {
        const entry = this.db.get([partition, seq]);
        if (entry && count <= this.retention.maxEntries && entry.at >= cutoff) break;
        void this.order.remove(seq);
        if (entry) {
          void this.db.remove([partition, seq]);
          count--;
        }
        removed++;
      }
      if (removed > 0) void this.meta.put(COUNT_KEY, count);
      return removed;
    });
  }
}
