/** One Server-Sent Event. `id` is what a reconnecting client sends back as `Last-Event-ID`. */
export interface ServerSentEvent {
  id?: string;
  event?: string;
  data: unknown;
  retry?: number;
}

export interface SseOptions {
  /** Stop when this aborts (pass `request.signal` so a gone client ends the stream). */
  signal?: AbortSignal;
  /** Comment line sent when idle so proxies keep the connection; default 15 s, 0 turns it off. */
  heartbeatMs?: number;
  /**
   * Sent first as the stream's `retry:` field (how long a disconnected EventSource waits before it
   * reconnects); default 2000 ms. Writing it at once also sends the headers, so a client is not left
   * waiting for them while the source has nothing to say yet.
   */
  retryMs?: number;
}

const encoder = new TextEncoder();

export function formatEvent(event: ServerSentEvent): string {
  let out = '';
  if (event.id !== undefined) out += `id: ${event.id.replace(/[\r\n]/g, '')}\n`;
  if (event.event !== undefined) out += `event: ${event.event.replace(/[\r\n]/g, '')}\n`;
  if (event.retry !== undefined) out += `retry: ${Math.floor(event.retry)}\n`;
  const data = typeof event.data === 'string' ? event.data : JSON.stringify(event.data);
  for (const line of data.split(/\r\n|\r|\n/)) out += `data: ${line}\n`;
  return `${out}\n`;
}

/**
 * A `text/event-stream` response fed by an async iterable. The source decides where to start:
 * read `request.headers.get('last-event-id')` to resume after the last event the client saw.
 * Pulling from the source only when the socket wants more gives backpressure for free.
 */
export function sse(source: AsyncIterable<ServerSentEvent>, options: SseOptions = {}): Response {
  const iterator = source[Symbol.asyncIterator]();
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  let heartbeat: NodeJS.Timeout | undefined;
  let finished = false;
  const finish = async (): Promise<void> => {
    if (finished) return;
    finished = true;
    if (heartbeat) clearInterval(heartbeat);
    await iterator.return?.();
  };
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(`retry: ${Math.max(0, Math.floor(options.retryMs ?? 2000))}\n\n`));
      if (heartbeatMs > 0) {
        heartbeat = setInterval(() => {
          try {
            controller.enqueue(encoder.encode(': keep-alive\n\n'));
          } catch {
            void finish();
          }
        }, heartbeatMs);
        heartbeat.unref();
      }
      options.signal?.addEventListener('abort', () => {
        void finish().then(() => {
          try {
            controller.close();
          } catch {
            // already closed
          }
        });
      });
    },
    async pull(controller) {
      try {
        const next = await iterator.next();
        if (next.done || finished) {
          await finish();
          controller.close();
          return;
        }
        controller.enqueue(encoder.encode(formatEvent(next.value)));
      } catch (err) {
        await finish();
        controller.error(err);
      }
    },
    async cancel() {
      await finish();
    },
  });
  return new Response(stream, {
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-accel-buffering': 'no',
    },
  });
}
