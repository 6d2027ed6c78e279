import { ServerResponse, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';

type HeadArgs = [statusMessage?: string | OutgoingHttpHeaders | unknown[], headers?: OutgoingHttpHeaders | unknown[]];

/**
 * The Node response of a listener, which adds the request id to the status line's headers as they
 * are written. Setting it with `setHeader` when the request arrives (as before) costs every
 * response Node's slower path: a header map made per response, and h3's own headers merged into
 * it one `setHeader` at a time, where a response with no header set beforehand has its header
 * list written as given. A header the handler set itself under the same name wins, as before.
 */
export class RequestIdResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  /** Set by the listener when the request arrives. */
  requestId: string | undefined = undefined;

  override writeHead(statusCode: number, ...rest: HeadArgs): this {
    const id = this.requestId;
    if (id !== undefined && !this.headersSent) {
      this.requestId = undefined;
      const headers = typeof rest[0] === 'string' ? rest[1] : rest[0];
      if (Array.isArray(headers) && !this.hasHeader('x-request-id') && !listsRequestId(headers)) {
        if (headers.length === 0 || typeof headers[0] === 'string') headers.push('x-request-id', id);
        else headers.push(['x-request-id', id]);
      } else if (!this.hasHeader('x-request-id') && !(headers && !Array.isArray(headers) && hasRequestIdKey(headers))) {
        this.setHeader('x-request-id', id);
      }
    }
    return super.writeHead(statusCode, ...(rest as [string, OutgoingHttpHeaders]));
  }
}

/** Whether a header list (flat `[name, value, ...]` or `[[name, value], ...]`) names x-request-id. */
function listsRequestId(headers: unknown[]): boolean {
  const flat = headers.length === 0 || typeof headers[0] === 'string';
  for (let i = 0; i < headers.length; i += flat ? 2 : 1) {
    const name = flat ? headers[i] : (headers[i] as unknown[])[0];
    if (typeof name === 'string' && name.length === 12 && name.toLowerCase() === 'x-request-id') return true;
  }
  return false;
}

function hasRequestIdKey(headers: OutgoingHttpHeaders): boolean {
  for (const name in headers) if (name.length === 12 && name.toLowerCase() === 'x-request-id') return true;
  return false;
}
