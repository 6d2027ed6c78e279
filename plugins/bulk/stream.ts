import { TesseraError, type RouteRequest } from 'tessera-runtime/plugin';
import type { BulkResult } from './bulk-result.js';
import type { BulkWriter } from './bulk-writer.js';
import { lines, LineTooLongError, type Line } from './lines.js';

class StreamStopped extends Error {}

/**
 * The request's chunks until `signal` aborts; then it throws StreamStopped, even while waiting for
 * a chunk that may never come. (Throwing, not ending: an end would make the split-off tail of the
 * last chunk look like a complete line.) One abort listener at a time, removed after each chunk,
 * so a stream of millions of chunks holds no more than one.
 */
async function* untilAborted(chunks: AsyncIterable<Uint8Array>, signal: AbortSignal): AsyncGenerator<Uint8Array> {
  const source = chunks[Symbol.asyncIterator]();
  for (;;) {
    if (signal.aborted) throw new StreamStopped();
    const next = await new Promise<IteratorResult<Uint8Array> | undefined>((resolve, reject) => {
      const onAbort = (): void => resolve(undefined);
      signal.addEventListener('abort', onAbort, { once: true });
      source.next().then(
        (value) => {
          signal.removeEventListener('abort', onAbort);
          resolve(value);
        },
        (err: unknown) => {
          signal.removeEventListener('abort', onAbort);
          reject(err);
        },
      );
    });
    if (next === undefined) throw new StreamStopped();
    if (next.done) return;
    yield next.value;
  }
}

/**
 * Runs one bulk stream: every line goes to `onLine`; whatever ends the stream early, the lines read
 * before it are applied (the writer's last batch is flushed) and the answer says how far it got.
 *
 * - A line over `maxLineBytes`: 400 `line_too_long`, with the results so far in `details`.
 * - Shutdown (the listener drains): the stream stops at the next line boundary, the batch being
 *   collected is written, and the answer is 503 `shutting_down` with `details.interrupted: true`,
 *   `linesRead` and the results so far, well within the drain time. A client resumes at line
 *   `linesRead + 1`.
 *
 * `onLine` returns the number of the last line whose effect is settled (a `/v1/bulk` action line
 * waiting for its document is not), which is what `linesRead` reports.
 */
export async function runBulkStream(
  request: RouteRequest<any, any>,
  maxLineBytes: number,
  result: BulkResult,
  writer: BulkWriter,
  onLine: (line: Line) => Promise<void>,
  settledLine: () => number,
  started: number,
): Promise<Record<string, unknown>> {
  const shutdown = request.shutdownSignal;
  let interrupted = false;
  try {
    for await (const line of lines(untilAborted(request.stream(), shutdown), maxLineBytes)) {
      await onLine(line);
      // Lines already received are not worth waiting for: stop at this line boundary.
      if (shutdown.aborted) {
        interrupted = true;
        break;
      }
    }
  } catch (err) {
    if (err instanceof StreamStopped) {
      interrupted = true;
    } else {
      await writer.flush();
      if (err instanceof LineTooLongError) {
        throw new LineTooLongError(err.details.line, err.details.limit, { linesRead: settledLine(), ...partial(result, started) });
      }
      throw err;
    }
  }
  await writer.flush();
  if (interrupted) {
    throw new TesseraError(
      'shutting_down',
      503,
      `The server is shutting down: the stream was stopped after line ${settledLine()}; those lines are applied. Send the rest again from line ${settledLine() + 1}.`,
      { details: { interrupted: true, linesRead: settledLine(), ...partial(result, started) }, headers: { connection: 'close', 'retry-after': '5' } },
    );
  }
  return result.toJSON(Math.round(performance.now() - started));
}

function partial(result: BulkResult, started: number): Record<string, unknown> {
  const { ok: _ok, ...rest } = result.toJSON(Math.round(performance.now() - started));
  return rest;
}
