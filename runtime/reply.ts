/**
 * A handler's answer with a status or headers other than 200 JSON. Plain objects returned from a
 * handler are 200 and get `ok: true`; `reply(201, { id })` says otherwise.
 */
export class Reply {
  readonly status: number;
  readonly body: unknown;
  readonly headers: Record<string, string>;

  constructor(status: number, body: unknown, headers: Record<string, string> = {}) {
    this.status = status;
    this.body = body;
    this.headers = headers;
  }
}

export function reply(status: number, body: unknown, headers?: Record<string, string>): Reply {
  return new Reply(status, body, headers);
}

/** Success bodies carry `ok: true`; a handler that already set `ok` keeps its own. */
export function withOk(body: unknown): unknown {
  if (body === undefined || body === null) return { ok: true };
  if (typeof body === 'object') {
    // Only plain objects get `ok` merged in; arrays, dates and buffers are sent as they are.
    const proto = Object.getPrototypeOf(body) as unknown;
    if ((proto === Object.prototype || proto === null) && !('ok' in body)) return { ok: true, ...(body as Record<string, unknown>) };
  }
  return body;
}
