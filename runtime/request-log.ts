import pino, { type Logger } from 'pino';

// `msgPrefixSym` is in pino.symbols but not in its type declarations.
const s = pino.symbols as typeof pino.symbols & { readonly msgPrefixSym: unique symbol };

type Internals = Record<symbol, any>;

const fields = ['reqId', 'listener', 'method', 'route', 'status', 'ms'];

/** Whether pino would write the request line exactly as `RequestLog` does: no hook, mixin, redaction or serializer touches it. */
function plainJson(log: Logger): boolean {
  const l = log as unknown as Internals;
  const stream = l[s.streamSym] as (Internals & { write?: unknown }) | undefined;
  const serializers = (l[s.serializersSym] ?? {}) as Record<string, unknown>;
  const stringifiers = (l[s.stringifiersSym] ?? {}) as Record<string | symbol, unknown>;
  const hooks = (l[s.hooksSym] ?? {}) as { streamWrite?: unknown };
  const formatters = (l[s.formattersSym] ?? {}) as { log?: unknown };
  return (
    stream !== undefined &&
    typeof stream.write === 'function' &&
    stream[s.needsMetadataGsym] !== true &&
    !l[s.mixinSym] &&
    !l[s.nestedKeySym] &&
    !l[s.msgPrefixSym] &&
    l[s.messageKeySym] === 'msg' &&
    typeof l[s.timeSym] === 'function' &&
    typeof l[s.lsCacheSym]?.[30] === 'string' &&
    typeof l[s.endSym] === 'string' &&
    !formatters.log &&
    !hooks.streamWrite &&
    !stringifiers[s.wildcardFirstSym] &&
    Reflect.ownKeys(stringifiers).length === 0 &&
    fields.every((f) => serializers[f] === undefined)
  );
}

/**
 * The line's middle for each (method, route) pair, `"GET","route":"/health","status":`, made once:
 * the few distinct pairs of a listener, so a line is fewer concatenations (fewer strings to collect).
 */
class MethodRoutes {
  private readonly byRoute = new Map<string, Map<string, string>>();
  private size = 0;
  get(method: string, route: string): string {
    let byMethod = this.byRoute.get(route);
    let text = byMethod?.get(method);
    if (text === undefined) {
      text = `${JSON.stringify(method)},"route":${JSON.stringify(route)},"status":`;
      // Route labels and methods are a small set; a client cannot grow this past the bound.
      if (this.size < 1024) {
        if (!byMethod) this.byRoute.set(route, (byMethod = new Map()));
        byMethod.set(method, text);
        this.size++;
      }
    }
    return text;
  }
}

/**
 * The one line per request. pino's generic path (the object walked key by key, each value typed
 * and quoted, the hooks and the mixin checked) is a measurable share of a small request; this
 * writes the same line, byte for byte (`{"level":"info","time":…,"pid":…,"reqId":…,"listener":…,
 * "method":…,"route":…,"status":…,"ms":…,"msg":"request"}`), straight to the logger's stream,
 * with the level's prefix, the time, the bindings and the line end taken from the logger itself.
 * A logger configured in a way that would change the line (a mixin, redaction, serializers, a
 * stream that wants metadata) is used through pino as before.
 */
export class RequestLog {
  private readonly log: Logger;
  private readonly listener: string;
  private readonly fast: boolean;
  /** `","listener":"main","method":`: between the id and the method. */
  private readonly afterId: string;
  private readonly methodRoutes = new MethodRoutes();
  /** The logger's bindings and what follows them up to the id, remade if the bindings change. */
  private chindings: string | undefined;
  private afterTime = '';
  private timeMs = -1;
  private timeText = '';

  constructor(log: Logger, listener: string) {
    this.log = log;
    this.listener = listener;
    this.fast = plainJson(log);
    this.afterId = `","listener":${JSON.stringify(listener)},"method":`;
  }

  /** `reqId` is one of ours (hex digits and dashes) or a client id that passed `[\w.:@/+=-]{1,128}`: nothing in it needs escaping in JSON. */
  write(reqId: string, method: string, route: string, status: number, ms: number): void {
    const log = this.log;
    if (!this.fast) {
      log.info({ reqId, listener: this.listener, method, route, status, ms }, 'request');
      return;
    }
    if (!log.isLevelEnabled('info')) return;
    const l = log as unknown as Internals;
    const chindings = l[s.chindingsSym] as string;
    if (chindings !== this.chindings) {
      this.chindings = chindings;
      this.afterTime = chindings + ',"reqId":"';
    }
    const timeFn = l[s.timeSym] as () => string;
    let time: string;
    if (timeFn === pino.stdTimeFunctions.epochTime) {
      // pino's default, `,"time":<epoch ms>`: the same text for every line of one millisecond.
      const now = Date.now();
      if (now !== this.timeMs) {
        this.timeMs = now;
        this.timeText = `,"time":${now}`;
      }
      time = this.timeText;
    } else time = timeFn();
    const line =
      (l[s.lsCacheSym][30] as string) +
      time +
      this.afterTime +
      reqId +
      this.afterId +
      this.methodRoutes.get(method, route) +
      status +
      ',"ms":' +
      (Number.isFinite(ms) ? hundredths(ms) : 'null') +
      ',"msg":"request"' +
      (l[s.endSym] as string);
    (l[s.streamSym] as { write(line: string): unknown }).write(line);
  }
}

/**
 * `ms`, which the listener rounds to hundredths, as `String()` writes it (`0.07`, `0.1`, `12`, `1234.5`), from two
 * integers: formatting a fraction is a double-to-shortest-decimal conversion per request.
 */
function hundredths(ms: number): string {
  const h = Math.round(ms * 100);
  // Anything else (not in hundredths, negative, huge) as pino would write it.
  if (h / 100 !== ms || h < 0 || h > Number.MAX_SAFE_INTEGER) return String(ms);
  const whole = Math.floor(h / 100);
  const frac = h - whole * 100;
  if (frac === 0) return `${whole}`;
  if (frac % 10 === 0) return `${whole}.${frac / 10}`;
  return frac < 10 ? `${whole}.0${frac}` : `${whole}.${frac}`;
}
