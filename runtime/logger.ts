import pino, { type Logger } from 'pino';

export type { Logger } from 'pino';

export interface LoggerOptions {
  level?: string;
  /** Where lines go; default stdout. Tests pass a stream to read them. */
  destination?: pino.DestinationStream;
}

/**
 * Structured JSON lines (`time` in epoch milliseconds, pino's default and its cheapest). The level comes from TESSERA_LOG_LEVEL (default `info`); writes to stdout
 * are asynchronous so a busy listener does not wait on the terminal, and are flushed on shutdown.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const level = options.level ?? process.env.TESSERA_LOG_LEVEL ?? 'info';
  const destination = options.destination ?? pino.destination({ dest: 1, sync: false });
  return pino(
    {
      level,
      base: { pid: process.pid },
      formatters: { level: (label) => ({ level: label }) },
      serializers: { err: pino.stdSerializers.err },
    },
    destination,
  );
}
