import pino, { type Logger } from 'pino';

export type { Logger } from 'pino';

export interface LoggerOptions {
  level?: string;
  /** Where lines go; default stdout. Tests pass a stream to read them. */
  destination?: pino.DestinationStream;
}

/**
 * stdout, written in chunks of up to 4 KiB and at least once a second: a busy listener writes one
 * line per request, and a write call per line was the largest single cost of a request. A crash
 * can lose the last second of lines; shutdown and fatal paths flush.
 */
function bufferedStdout(): pino.DestinationStream {
  const stream = pino.destination({ dest: 1, sync: false, minLength: 4096 });
  setInterval(() => {
    try {
      stream.flush();
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
