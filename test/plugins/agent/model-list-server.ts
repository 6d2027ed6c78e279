import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A model of OpenRouter's `GET /api/v1/models` list: prices are USD per token, as strings. */
export interface ListedModel {
  id: string;
  name?: string;
  context_length?: number;
  pricing?: { prompt: string; completion: string };
}

export interface ModelListServer {
  /** `http://127.0.0.1:<port>/api/v1` */
  baseUrl: string;
  models: ListedModel[];
  /** Scripted failures for the next requests: a status, `garbage` (not JSON) or `hang`. */
  failNext: Array<number | 'garbage' | 'hang'>;
  requests: Array<{ path: string; authorization: string | undefined }>;
  close(): Promise<void>;
}

/** A local server speaking OpenRouter's models list, for sync tests (no provider is reachable here). */
export async function startModelListServer(models: ListedModel[] = []): Promise<ModelListServer> {
  const state: Omit<ModelListServer, 'baseUrl' | 'close'> = { models, failNext: [], requests: [] };
  const server: Server = createServer((req: IncomingMessage, res) => {
    state.requests.push({ path: req.url ?? '', authorization: req.headers.authorization });
    if (req.method !== 'GET' || req.url !== '/api/v1/models') {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"Not Found","code":404}}');
      return;
    }
    const failure = state.failNext.shift();
    if (failure === 'hang') return;
    if (failure === 'garbage') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('<html>upstream proxy error</html>');
      return;
    }
    if (typeof failure === 'number') {
      res.writeHead(failure, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'Provider returned error', code: failure } }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: state.models }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    baseUrl: `http://127.0.0.1:${port}/api/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

/** USD per 1M tokens to OpenRouter's per-token string. */
export const perToken = (per1M: number): string => (per1M / 1e6).toFixed(12).replace(/0+$/, '').replace(/\.$/, '');
