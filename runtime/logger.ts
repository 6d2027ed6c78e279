import pino, { type Logger } from 'pino';

export type { Logger } from 'pino';

export interface LoggerOptions {
  level?: string;
  /** Where lines go; default stdout. Tests pass a stream to read them. */
  destination?: pino.DestinationStream;
}

/**
 * Lines are encoded as they come into a 64 KiB buffer and handed to sonic-boom (in its buffer
 * mode) about every 32 KiB and at least once a second, so a busy listener makes one write call per
 * ~200 request lines. sonic-boom's own `minLength` buffering was the batching before, but each
 * async write is a hop to libuv's thread pool (a measurable share of a small request on two cores),
 * and above ~4 KiB its string buffer grows by concatenation measured with `Buffer.byteLength` on
 * every line, which copies the whole buffer each time. Encoding at once also leaves no string
 * alive between requests for the garbage collector to copy.
 */
class BatchedDestination {
  private buffer: Buffer;
  private used = 0;
  private readonly boom: pino.DestinationStream & { flush(cb?: (err?: Error) => void): void; flushSync(): void };

  constructor(
    boom: pino.DestinationStream,
    private readonly batchBytes: number,
  ) {
    this.boom = boom as BatchedDestination['boom'];
    this.buffer = Buffer.allocUnsafeSlow(batchBytes * 2);
  }

  write(line: string): boolean {
    // A UTF-16 unit takes at most 3 bytes in UTF-8.
    if (this.used + line.length * 3 > this.buffer.length) {
      this.handOver();
      if (line.length * 3 > this.buffer.length) {
        this.boom.write(Buffer.from(line) as unknown as string);
        return true;
      }
    }
    this.used += this.buffer.write(line, this.used);
    if (this.used >= this.batchBytes) this.handOver();
    return true;
  }

  private handOver(): void {
    if (this.used === 0) return;
    // sonic-boom keeps the bytes until they are written: the next lines go to a fresh buffer.
    const batch = this.buffer.subarray(0, this.used);
    this.buffer = Buffer.allocUnsafeSlow(this.buffer.length);
    this.used = 0;
    this.boom.write(batch as unknown as string);
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

/** stdout, in batches (above); a crash can lose the last second of lines, shutdown and fatal paths flush. */
function bufferedStdout(): pino.DestinationStream {
  // Synchronous, as Node's own process.stdout is for files and pipes on Linux: a batch is one
  // write(2) of ~32 KiB (about 10 us to a file or pipe), where an asynchronous write is a hand-off
  // to the thread pool whose wake-up, on a loaded two-core machine, can cost the event loop its core.
  const boom = pino.destination({ dest: 1, sync: true, minLength: 0, maxWrite: 256 * 1024, contentMode: 'buffer' } as Parameters<typeof pino.destination>[0]);
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
 * Structured JSON lines (`time` in epoch milliseconds, pino's default and its cheapest). The level comes from TESSERA_LOG_LEVEL (default `info`); lines to stdout
 * are batched (one write of ~32 KiB per ~200 request lines, at least once a second), so a busy listener
 * rarely stops to write, and are flushed on warnings, errors and shutdown.
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
