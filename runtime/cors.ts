/**
 * CORS for a listener whose manifest lists `cors.origins`: off otherwise (the web UIs are
 * same-origin). An allowed origin's requests get `Access-Control-Allow-Origin` (and, with
 * `credentials`, `-Allow-Credentials`); its preflights answer 204 before routing. A request from
 * another origin gets no CORS headers, so the browser keeps the answer from the page.
 */
import type { z } from 'zod';
import type { corsSchema } from './manifest-schema.js';

export type CorsConfig = z.output<typeof corsSchema>;

const defaultMethods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
const defaultHeaders = ['content-type', 'x-api-key', 'x-tenant', 'x-request-id', 'x-csrf-token', 'last-event-id'];
const defaultExpose = ['x-request-id', 'retry-after'];

export function corsAllows(cors: CorsConfig | undefined, origin: string | null): origin is string {
  if (!cors || origin === null) return false;
  return cors.origins === '*' || cors.origins.includes(origin);
}

/** Headers for an allowed origin's actual request. */
export function corsHeaders(cors: CorsConfig, origin: string): Record<string, string> {
  return {
    'access-control-allow-origin': cors.origins === '*' ? '*' : origin,
    ...(cors.credentials ? { 'access-control-allow-credentials': 'true' } : {}),
    'access-control-expose-headers': (cors.exposeHeaders ?? defaultExpose).join(', '),
    vary: 'Origin',
  };
}

/** The 204 answer to an allowed origin's preflight. */
export function corsPreflight(cors: CorsConfig, origin: string): Response {
  return new Response(null, {
    status: 204,
    headers: {
      'access-control-allow-origin': cors.origins === '*' ? '*' : origin,
      ...(cors.credentials ? { 'access-control-allow-credentials': 'true' } : {}),
      'access-control-allow-methods': (cors.methods ?? defaultMethods).join(', '),
      'access-control-allow-headers': (cors.headers ?? defaultHeaders).join(', '),
      'access-control-max-age': String(cors.maxAgeSeconds ?? 600),
      vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
    },
  });
}

/** Whether `origin` is the origin of the server the request was sent to (its Host). */
export function sameOrigin(origin: string, host: string | null): boolean {
  if (host === null) return false;
  try {
    const url = new URL(origin);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.host === host.trim().toLowerCase();
  } catch {
    return false;
  }
}

/** Origins a listener names one by one in `cors.origins` (none for `"*"`, which names nobody in particular). */
export function listedOrigins(cors: CorsConfig | undefined): readonly string[] {
  return cors && cors.origins !== '*' ? cors.origins : [];
}
