import type { RouteRequest } from '../plugin-types.js';
import { sse, type ServerSentEvent } from '../sse.js';
import type { EventFilter, EventLog, LoggedEvent } from './event-types.js';

export interface EventStreamOptions {
  filter?: EventFilter;
  /** Where a client that sends no `Last-Event-ID` (and no `?after=`) starts: every kept entry, or only new ones. @default "start" */
  from?: 'start' | 'now';
  /** The `data` of each SSE message; default the whole entry. */
  data?: (event: LoggedEvent) => unknown;
  /** End the stream after the entry for which this returns true (a job's final state). */
  endAfter?: (event: LoggedEvent) => boolean;
  heartbeatMs?: number;
}

/** The resume point a client asks for: `Last-Event-ID` first (what EventSource resends), then `?after=`. */
export function resumeAfter(request: Pick<RouteRequest, 'headers' | 'url'>): number | undefined {
  const raw = request.headers.get('last-event-id') ?? request.url.searchParams.get('after');
  if (raw === null || raw.trim() === '') return undefined;
  const n = Number(raw);
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

/**
 * A `text/event-stream` of an event log: `id` is the entry id (so a reconnecting EventSource
 * resumes exactly after what it saw), `event` its type. Entries retention has deleted arrive as one
 * `event: gap` message with `{from, to}`, never as silence. Ends when the client leaves, on shutdown,
 * or after `endAfter` matches.
 */
export function eventStreamResponse(request: RouteRequest<any, any>, log: EventLog<any>, options: EventStreamOptions = {}): Response {
  const signal = AbortSignal.any([request.signal, request.shutdownSignal]);
  const after = resumeAfter(request) ?? (options.from === 'now' ? log.lastId() : 0);
  const toData = options.data ?? ((e: LoggedEvent) => e);
  async function* source(): AsyncIterable<ServerSentEvent> {
    for await (const item of log.follow({ ...options.filter, after, signal })) {
      if ('kind' in item) {
        yield { id: String(item.to), event: 'gap', data: { from: item.from, to: item.to } };
        continue;
      }
      yield { id: String(item.id), event: item.type, data: toData(item) };
      if (options.endAfter?.(item)) return;
    }
  }
  return sse(source(), { signal, ...(options.heartbeatMs !== undefined ? { heartbeatMs: options.heartbeatMs } : {}) });
}
