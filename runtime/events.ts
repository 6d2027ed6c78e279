import type { Logger } from 'pino';

export type EventHandler<T = unknown> = (payload: T) => void | Promise<void>;

/**
 * The application-wide event bus plugins talk through (`search:index.created`, ...). A failing
 * handler is logged and never breaks the emitter or the other handlers.
 */
export class EventBus {
  private readonly handlers = new Map<string, Set<EventHandler<any>>>();
  private readonly log: Logger;

  constructor(log: Logger) {
    this.log = log;
  }

  on<T = unknown>(name: string, handler: EventHandler<T>): () => void {
    let set = this.handlers.get(name);
    if (!set) {
      set = new Set();
      this.handlers.set(name, set);
    }
    set.add(handler);
    return () => set!.delete(handler);
  }

  /** Deliver to every handler and wait for them; returns how many handlers ran. */
  async emit<T = unknown>(name: string, payload: T): Promise<number> {
    const set = this.handlers.get(name);
    if (!set || set.size === 0) return 0;
    await Promise.all(
      [...set].map(async (handler) => {
        try {
          await handler(payload);
        } catch (err) {
          this.log.error({ err, event: name }, 'event handler failed');
        }
      }),
    );
    return set.size;
  }
}
