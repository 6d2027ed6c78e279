import type { H3Event } from 'h3';
import type { Logger } from 'pino';
import { limitedBody, readBodyText } from './body.js';
import { sameOrigin } from './cors.js';
import type { Principal, RouteRequest } from './plugin-types.js';

/**
 * The object a handler receives. A class with its accessors on the prototype: one allocation per
 * request, and the costly parts (query object, child logger, AbortSignal) only when asked for.
 */
export class HttpRouteRequest implements RouteRequest<unknown, unknown> {
  // `declare`: the constructor sets every field once, in one order (one hidden class), where
  // emitted class fields would define each as undefined first, in a separate initializer.
  declare readonly event: H3Event;
  declare readonly params: Record<string, string>;
  declare readonly body: unknown;
  declare readonly requestId: string;
  declare readonly listener: string;
  declare readonly principal: Principal | undefined;
  declare readonly shutdownSignal: AbortSignal;
  declare private readonly plugin: string;
  declare private readonly baseLog: Logger;
  declare private readonly limit: number;
  /** Set when the runtime already read the body (routes with a `body` schema). */
  declare private readonly rawText: string | undefined;
  declare private readonly listedOrigins: readonly string[];
  declare private validatedQuery: unknown;
  declare private childLog: Logger | undefined;
  declare private consumed: boolean;

  /** Positional, not an options object: one allocation per request fewer. */
  constructor(
    event: H3Event,
    params: Record<string, string>,
    query: unknown,
    body: unknown,
    rawText: string | undefined,
    requestId: string,
    listener: string,
    plugin: string,
    principal: Principal | undefined,
    log: Logger,
    limit: number,
    shutdownSignal: AbortSignal,
    listedOrigins: readonly string[],
  ) {
    this.event = event;
    this.params = params;
    this.validatedQuery = query;
    this.body = body;
    this.rawText = rawText;
    this.requestId = requestId;
    this.listener = listener;
    this.plugin = plugin;
    this.principal = principal;
    this.baseLog = log;
    this.limit = limit;
    this.shutdownSignal = shutdownSignal;
    this.listedOrigins = listedOrigins;
    this.childLog = undefined;
    this.consumed = false;
  }

  get originTrusted(): boolean {
    const origin = this.event.req.headers.get('origin');
    if (origin === null) return true;
    return sameOrigin(origin, this.event.req.headers.get('host')) || this.listedOrigins.includes(origin);
  }

  get tenant(): string {
    return this.principal?.tenant ?? 'default';
  }

  get method(): string {
    return this.event.req.method;
  }

  get path(): string {
    return this.event.url.pathname;
  }

  get url(): URL {
    return this.event.url;
  }

  get headers(): Headers {
    return this.event.req.headers;
  }

  get query(): unknown {
    this.validatedQuery ??= Object.fromEntries(this.event.url.searchParams);
    return this.validatedQuery;
  }

  get log(): Logger {
    this.childLog ??= this.baseLog.child({ reqId: this.requestId, plugin: this.plugin });
    return this.childLog;
  }

  get signal(): AbortSignal {
    return this.event.req.signal;
  }

  stream(): AsyncIterable<Uint8Array> {
    this.take();
    const rawText = this.rawText;
    if (rawText !== undefined)
      return (async function* () {
        yield Buffer.from(rawText);
      })();
    return limitedBody(this.event, this.limit);
  }

  text(): Promise<string> {
    this.take();
    if (this.rawText !== undefined) return Promise.resolve(this.rawText);
    return readBodyText(this.event, this.limit);
  }

  private take(): void {
    if (this.consumed) throw new Error('The request body can be read only once');
    this.consumed = true;
  }
}
