import pino, { type Logger } from 'pino';

export type { Logger } from 'pino';

export interface LoggerOptions {
  level?: string;
  /** Where lines go; default stdout. Tests pass a stream to read them. */
  destination?: pino.DestinationStream;
}

/**
 * Lines wait here and go to sonic-boom in batches of about 32 KiB (and at least once a second),
 * so a busy listener makes one write call per ~200 request lines. sonic-boom's own `minLength`
 * buffering was the batching before, but each async write is a hop to libuv's thread pool (a
 * measurable share of a small request on two cores), and above ~4 KiB its buffer grows by string
 * concatenation measured with `Buffer.byteLength` on every line, which copies the whole buffer each
 * time. Here a line is appended to a rope and measured by its own length; the rope is flattened
 * once, when it is handed over.
 */
class BatchedDestination {
  private pending = '';
  private pendingChars = 0;
  private readonly boom: pino.DestinationStream & { flush(cb?: (err?: Error) => void): void; flushSync(): void };

  constructor(
    boom: pino.DestinationStream,
    private readonly batchChars: number,
  ) {
    this.boom = boom as BatchedDestination['boom'];
  }

  write(line: string): boolean {
    this.pending += line;
    this.pendingChars += line.length;
    if (this.pendingChars >= this.batchChars) this.handOver();
    return true;
  }

  private handOver(): void {
    if (this.pendingChars === 0) return;
    const batch = this.pending;
    this.pending = '';
    this.pendingChars = 0;
    this.boom.write(batch);
  }

  flush(cb?: (err?: Error) => void): void {
    this.handOver();
    this.boom.flush(cb);
  }

  flushSync(): void {
    this.handOver();
    this.boom.flushSync();
  }
}

/** Destinations with lines still held in this process, flushed synchronously when it exits. */
const held = new Set<WeakRef<BatchedDestination>>();
let exitHookInstalled = false;

function flushHeldOnExit(): void {
  for (const ref of held) {
    try {
      ref.deref()?.flushSync();
    } catch {
      // A closed or still-opening stream: nothing more can be written.
    }
  }
}

/** stdout, asynchronously, in batches (above); a crash can lose the last second of lines, shutdown and fatal paths flush. */
function bufferedStdout(): pino.DestinationStream {
  const boom = pino.destination({ dest: 1, sync: false, minLength: 0, maxWrite: 256 * 1024 });
  const stream = new BatchedDestination(boom, 32 * 1024);
  const ref = new WeakRef(stream);
  held.add(ref);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', flushHeldOnExit);
  }
  const timer = setInterval(() => {
    const live = ref.deref();
    if (!live) {
      held.delete(ref);
      clearInterval(timer);
      return;
    }
    try {
      live.flush();
    } catch {
      // flush() throws while the stream is still opening or already closed: nothing to write.
    }
  }, 1000).unref();
  return stream;
}

/** Lines at this level and above (warn, error, fatal) are written before the call returns. */
const urgentLevel = 40;

/**
 * Writes what the logger holds before returning. Start-up calls it once the listeners accept
 * connections, so a `listening` line (and anything logged during start, such as rbac's one-time
 * bootstrap key) is on stdout before a client can reach the process, even if it is killed next.
 */
export function flushLogSync(log: Logger): void {
  const stream = (log as unknown as Record<symbol, unknown>)[pino.symbols.streamSym] as { flushSync?: () => void } | undefined;
  try {
    stream?.flushSync?.();
  } catch {
    // A stream still opening, already closed or not a file (tests' in-memory streams): nothing is held.
  }
}

/**
 * Structured JSON lines (`time` in epoch milliseconds, pino's default and its cheapest). The level comes from TESSERA_LOG_LEVEL (default `info`); writes to stdout
 * are asynchronous so a busy listener does not wait on the terminal, and are flushed on shutdown.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const level = options.level ?? process.env.TESSERA_LOG_LEVEL ?? 'info';
  const destination = options.destination ?? bufferedStdout();
  return pino(
    {
      level,
      base: { pid: process.pid },
      formatters: { level: (label) => ({ level: label }) },
      serializers: { err: pino.stdSerializers.err },
      hooks: {
        // A warning or an error may be the last line before a crash; it is not left in the buffer.
        logMethod(args, method, level) {
          method.apply(this, args);
          if (level >= urgentLevel) flushLogSync(this);
        },
      },
    },
    destination,
  );
}
