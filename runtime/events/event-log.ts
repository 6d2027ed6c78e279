import type { Database } from 'lmdb' with { 'resolution-mode': 'require' };
import type { Logger } from 'pino';
import type { StoreNamespace } from '../store.js';
import type {
  AppendOptions,
  EventFilter,
  EventGap,
  EventLog,
  EventPage,
  EventRetention,
  FollowOptions,
  LoggedEvent,
  ReadEventsOptions,
} from './event-types.js';

export const DEFAULT_EVENT_RETENTION: Required<EventRetention> = { maxAgeMs: 7 * 86_400_000, maxEvents: 100_000 };

/** Newest entries kept in memory, so live followers never touch the store. */
const RECENT = 2048;
/** Retention runs every this many appends (and once at start). */
const PRUNE_EVERY = 256;
/** Deletions per retention step, so pruning a large backlog never stalls the process. */
const PRUNE_BATCH = 5000;

type StoredEvent = Omit<LoggedEvent, 'id'>;

/** The `events` database of the runtime's namespace: [plugin, id] -> entry, shared by every plugin's log. */
export function openEventsDb(ns: StoreNamespace): Database<StoredEvent, [string, number]> {
  return ns.db<StoredEvent, [string, number]>('events');
}

export function matches(event: LoggedEvent, filter: EventFilter): boolean {
  if (filter.tenant !== undefined && event.tenant !== filter.tenant) return false;
  if (filter.subject !== undefined && event.subject !== filter.subject) return false;
  if (filter.types && filter.types.length > 0) {
    let ok = false;
    for (const t of filter.types) {
      if (t.endsWith('*') ? event.type.startsWith(t.slice(0, -1)) : event.type === t) {
        ok = true;
        break;
      }
    }
    if (!ok) return false;
  }
  return true;
}

/**
 * One plugin's log. Ids are allocated in memory and written with lmdb's ordered asynchronous puts,
 * so entries commit in id order; an entry becomes readable (and followers wake) once committed.
 * The newest entry is never pruned, so ids keep increasing across restarts.
 */
export class PersistedEventLog implements EventLog<any> {
  readonly plugin: string;
  private readonly db: Database<StoredEvent, [string, number]>;
  private readonly log: Logger;
  private retention: Required<EventRetention>;
  private allocated = 0;
  /** Every id up to this one is committed: readers never see past it, so none can skip an entry still being written. */
  private committed = 0;
  /** Committed entries above a gap of ones still in flight (lmdb may resolve puts out of order). */
  private readonly early = new Map<number, LoggedEvent>();
  private first = 1;
  private readonly recent: LoggedEvent[] = [];
  private readonly subscribers = new Set<{ handler: (e: LoggedEvent) => void; filter?: EventFilter }>();
  private wake: Array<() => void> = [];
  private sinceCommitPrune = 0;
  private pruning = false;
  private closed = false;

  constructor(plugin: string, db: Database<StoredEvent, [string, number]>, log: Logger, retention: EventRetention = {}) {
    this.plugin = plugin;
    this.db = db;
    this.log = log;
    this.retention = { ...DEFAULT_EVENT_RETENTION, ...retention };
    for (const { key } of db.getRange({ start: [plugin, Number.MAX_SAFE_INTEGER], end: [plugin, 0], reverse: true, limit: 1 })) {
      this.allocated = this.committed = key[1];
    }
    for (const { key } of db.getRange({ start: [plugin, 0], end: [plugin, Number.MAX_SAFE_INTEGER], limit: 1 })) this.first = key[1];
    if (this.committed === 0) this.first = 1;
    setImmediate(() => void this.prune());
  }

  append(type: string, data: unknown, options: AppendOptions = {}): Promise<LoggedEvent> {
    if (this.closed) return Promise.reject(new Error(`The event log of "${this.plugin}" is closed`));
    const id = ++this.allocated;
    const stored: StoredEvent = {
      type,
      time: new Date().toISOString(),
      tenant: options.tenant ?? 'default',
      ...(options.subject !== undefined ? { subject: options.subject } : {}),
      data,
    };
    const event: LoggedEvent = { id, ...stored };
    return this.db.put([this.plugin, id], stored).then(
      () => {
        this.settle(event);
        return event;
      },
      (err: unknown) => {
        // A failed write leaves a hole that would hold every later entry back: fill it with a
        // marker entry so readers move on and can see what was lost.
        this.log.error({ err, plugin: this.plugin, id, type }, 'event log write failed');
        const lost: LoggedEvent = { id, type: 'event.lost', time: stored.time, tenant: stored.tenant, data: { type } };
        void this.db.put([this.plugin, id], { type: lost.type, time: lost.time, tenant: lost.tenant, data: lost.data }).finally(() => this.settle(lost));
        throw err;
      },
    );
  }

  /** Record `event` as written and publish every entry that now has no unwritten one before it. */
  private settle(event: LoggedEvent): void {
    this.early.set(event.id, event);
    while (this.early.has(this.committed + 1)) {
      const next = this.early.get(this.committed + 1)!;
      this.early.delete(next.id);
      this.committed = next.id;
      this.onCommitted(next);
    }
  }

  /** Called for each entry in id order, once it and every entry before it are committed. */
  private onCommitted(event: LoggedEvent): void {
    this.recent.push(event);
    if (this.recent.length > RECENT) this.recent.splice(0, this.recent.length - RECENT);
    for (const s of this.subscribers) {
      if (s.filter && !matches(event, s.filter)) continue;
      try {
        s.handler(event);
      } catch (err) {
        this.log.error({ err, plugin: this.plugin, event: event.type }, 'event subscriber failed');
      }
    }
    const waiting = this.wake;
    this.wake = [];
    for (const resolve of waiting) resolve();
    // By count as soon as the log is a little over its bound; by age every PRUNE_EVERY appends.
    const over = this.committed - this.first + 1 > this.retention.maxEvents + Math.max(16, this.retention.maxEvents >> 4);
    if (++this.sinceCommitPrune >= PRUNE_EVERY || over) {
      this.sinceCommitPrune = 0;
      void this.prune();
    }
  }

  read(options: ReadEventsOptions = {}): EventPage {
    const limit = Math.min(Math.max(options.limit ?? 100, 1), 1000);
    const after = Math.max(0, Math.floor(options.after ?? 0));
    const top = this.committed;
    const gap: EventGap | undefined = after + 1 < this.first && this.first <= top + 1 ? { kind: 'gap', from: after + 1, to: this.first - 1 } : undefined;
    const start = Math.max(after + 1, this.first);
    const events: LoggedEvent[] = [];
    let next = Math.max(after, this.first - 1);
    const oldestRecent = this.recent[0]?.id ?? Number.POSITIVE_INFINITY;
    if (start >= oldestRecent) {
      for (let i = start - oldestRecent; i < this.recent.length; i++) {
        const event = this.recent[i]!;
        if (event.id > top) break;
        next = event.id;
        if (matches(event, options)) {
          events.push(event);
          if (events.length >= limit) break;
        }
      }
    } else {
      // Filtered reads look at a bounded number of entries per page, so a rare type never makes one read scan everything.
      let looked = 0;
      for (const { key, value } of this.db.getRange({ start: [this.plugin, start], end: [this.plugin, top + 1] })) {
        const event = { id: key[1], ...value } as LoggedEvent;
        next = event.id;
        if (matches(event, options)) {
          events.push(event);
          if (events.length >= limit) break;
        }
        if (++looked >= limit * 20) break;
      }
    }
    return { events, ...(gap ? { gap } : {}), next, more: next < top };
  }

  async *follow(options: FollowOptions): AsyncIterable<LoggedEvent | EventGap> {
    const { signal } = options;
    let cursor = options.after ?? this.committed;
    while (!signal.aborted && !this.closed) {
      const page = this.read({ ...options, after: cursor, limit: 500 });
      if (page.gap) yield page.gap;
      for (const event of page.events) {
        if (signal.aborted) return;
        yield event;
      }
      cursor = page.next;
      // Entries committed while the consumer handled this page woke nobody: wait only when there are none.
      if (!page.more && this.committed <= cursor) await this.changed(signal);
    }
  }

  /** Resolves at the next commit, or when the signal aborts. */
  private changed(signal: AbortSignal): Promise<void> {
    if (signal.aborted || this.closed) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = (): void => {
        signal.removeEventListener('abort', done);
        resolve();
      };
      this.wake.push(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  subscribe(handler: (event: LoggedEvent) => void, filter?: EventFilter): () => void {
    const entry = { handler, ...(filter ? { filter } : {}) };
    this.subscribers.add(entry);
    return () => this.subscribers.delete(entry);
  }

  lastId(): number {
    return this.committed;
  }

  firstId(): number {
    return this.committed === 0 ? 1 : this.first;
  }

  configure(retention: EventRetention): void {
    this.retention = { ...this.retention, ...retention };
    void this.prune();
  }

  forTenant(tenant: string): EventLog<any> {
    return new TenantEventLog(this, tenant);
  }

  /** Delete what retention no longer keeps, oldest first, one batch per call. */
  async prune(now = Date.now()): Promise<number> {
    if (this.pruning || this.closed) return 0;
    this.pruning = true;
    try {
      const keepFrom = Math.max(this.first, this.committed - this.retention.maxEvents + 1);
      const cutoff = now - this.retention.maxAgeMs;
      const doomed: number[] = [];
      for (const { key, value } of this.db.getRange({ start: [this.plugin, this.first], end: [this.plugin, this.committed], limit: PRUNE_BATCH })) {
        if (key[1] >= keepFrom && Date.parse(value.time) >= cutoff) break;
        doomed.push(key[1]);
      }
      if (doomed.length === 0) return 0;
      await this.db.transaction(() => {
        for (const id of doomed) void this.db.remove([this.plugin, id]);
      });
      this.first = doomed[doomed.length - 1]! + 1;
      const stale = this.recent.findIndex((e) => e.id >= this.first);
      if (stale > 0) this.recent.splice(0, stale);
      if (doomed.length === PRUNE_BATCH) setImmediate(() => void this.prune());
      return doomed.length;
    } catch (err) {
      this.log.error({ err, plugin: this.plugin }, 'event log retention failed');
      return 0;
    } finally {
      this.pruning = false;
      // Appends that arrived while this step ran may have pushed the log over its bound again.
      if (!this.closed && this.committed - this.first + 1 > this.retention.maxEvents + Math.max(16, this.retention.maxEvents >> 4))
        setImmediate(() => void this.prune());
    }
  }

  close(): void {
    this.closed = true;
    for (const resolve of this.wake.splice(0)) resolve();
    this.subscribers.clear();
  }
}

/** A tenant's view of a log: appends carry the tenant, reads and subscriptions see only it. */
class TenantEventLog implements EventLog<any> {
  private readonly base: PersistedEventLog;
  private readonly tenant: string;

  constructor(base: PersistedEventLog, tenant: string) {
    this.base = base;
    this.tenant = tenant;
  }

  get plugin(): string {
    return this.base.plugin;
  }

  append(type: string, data: unknown, options: AppendOptions = {}): Promise<LoggedEvent> {
    return this.base.append(type, data, { ...options, tenant: this.tenant });
  }

  read(options: ReadEventsOptions = {}): EventPage {
    return this.base.read({ ...options, tenant: this.tenant });
  }

  follow(options: FollowOptions): AsyncIterable<LoggedEvent | EventGap> {
    return this.base.follow({ ...options, tenant: this.tenant });
  }

  subscribe(handler: (event: LoggedEvent) => void, filter: EventFilter = {}): () => void {
    return this.base.subscribe(handler, { ...filter, tenant: this.tenant });
  }

  lastId(): number {
    return this.base.lastId();
  }

  firstId(): number {
    return this.base.firstId();
  }

  configure(retention: EventRetention): void {
    this.base.configure(retention);
  }

  forTenant(tenant: string): EventLog<any> {
    return this.base.forTenant(tenant);
  }
}
