/** One entry of a plugin's event log. `id` increases by one per entry, per plugin, forever. */
export interface LoggedEvent<Data = unknown> {
  id: number;
  type: string;
  /** ISO 8601. */
  time: string;
  tenant: string;
  /** What the event is about (a job id, an execution id), for per-subject feeds. */
  subject?: string;
  data: Data;
}

/**
 * Told to a reader that asked for entries retention has already deleted: entries `from`..`to`
 * (inclusive) are gone. A reader is never silently moved past missing entries.
 */
export interface EventGap {
  kind: 'gap';
  from: number;
  to: number;
}

export interface EventFilter {
  /** Exact types, or prefixes ending in `*` (`"job.*"`). */
  types?: readonly string[];
  subject?: string;
  tenant?: string;
}

export interface ReadEventsOptions extends EventFilter {
  /** Entries with a larger id; 0 (default) reads from the oldest one kept. */
  after?: number;
  /** @default 100, at most 1000 */
  limit?: number;
}

export interface EventPage<Data = unknown> {
  events: Array<LoggedEvent<Data>>;
  /** Present when entries after `after` were already deleted by retention. */
  gap?: EventGap;
  /** Pass as `after` to continue: the last id looked at, which may be past the last returned (filters). */
  next: number;
  /** Whether more entries exist past `next` right now. */
  more: boolean;
}

export interface FollowOptions extends EventFilter {
  /** Start after this id; absent: only entries appended from now on. */
  after?: number;
  /** Ends the iteration. */
  signal: AbortSignal;
}

export interface EventRetention {
  /** Entries older than this are deleted. @default 7 days */
  maxAgeMs?: number;
  /** At most this many entries are kept. @default 100000 */
  maxEvents?: number;
}

export interface AppendOptions {
  /** @default "default" */
  tenant?: string;
  subject?: string;
}

/**
 * `ctx.events`: the plugin's append-only, persisted event log. `Events` maps each type to its data,
 * for plugins that want `append` and readers typed: `ctx.events as EventLog<MyEvents>`.
 */
export interface EventLog<Events extends Record<string, unknown> = Record<string, unknown>> {
  readonly plugin: string;
  /** Durable once this resolves (it survives a crash), and visible to readers from then on. */
  append<K extends keyof Events & string>(type: K, data: Events[K], options?: AppendOptions): Promise<LoggedEvent<Events[K]>>;
  read(options?: ReadEventsOptions): EventPage;
  /** Every entry after `after` matching the filter, then new ones as they come, until the signal aborts. */
  follow(options: FollowOptions): AsyncIterable<LoggedEvent | EventGap>;
  /** Called in-process after each append commits; returns the unsubscribe function. */
  subscribe(handler: (event: LoggedEvent) => void, filter?: EventFilter): () => void;
  /** The newest id (0 when nothing was ever appended). */
  lastId(): number;
  /** The oldest id still kept (lastId() + 1 when empty). */
  firstId(): number;
  /** Change this log's retention (the manifest's `events` block gives the default). */
  configure(retention: EventRetention): void;
  /** A view whose appends carry `tenant` and whose reads see only that tenant's entries. */
  forTenant(tenant: string): EventLog<Events>;
}
