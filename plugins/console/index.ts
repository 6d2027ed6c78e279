import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin, type HttpMethod } from 'tessera-runtime/plugin';
import { SEARCH_SERVICE } from '../search/index.js';
import { consoleHeaders } from './csp.js';
import { errors } from './errors.js';
import { registerIngestRoutes } from './ingest-routes.js';
import { consoleOptions } from './options.js';
import { forward, proxyPrefix } from './proxy.js';

/** The UI's files: beside this module in a checkout, or in the source tree when running from dist/. */
function uiDir(): string {
  const here = fileURLToPath(new URL('./ui', import.meta.url));
  if (existsSync(here)) return here;
  return fileURLToPath(new URL('../../../plugins/console/ui', import.meta.url));
}

/** Preact, its hooks and htm in one ES module (no build step, nothing from a CDN). */
function vendorDir(): string {
  return path.join(path.dirname(createRequire(import.meta.url).resolve('htm')), '..', 'preact');
}

/**
 * The control plane (seed 000's port 3849): the fleet's operator web UI, a same-origin proxy to
 * the deployment's other listeners for it, and the file ingestion API.
 */
export default definePlugin({
  name: 'console',
  version: '0.1.0',
  dependsOn: [{ name: 'search', version: '^0.1.0' }],
  options: consoleOptions,
  errors,
  setup(ctx) {
    const search = ctx.container.resolve(SEARCH_SERVICE);

    ctx.routes.add({
      method: 'GET',
      path: '/api/console',
      permission: 'public',
      throttle: 'light',
      summary: 'What the UI needs before sign-in: whether this listener enforces auth, and where to sign in',
      tags: ['console'],
      handler: (request) => {
        const own = ctx.app.listeners.find((l) => l.name === request.listener);
        const auth = own?.auth ?? false;
        return {
          name: ctx.app.name,
          version: ctx.version,
          auth,
          // rbac's /hub/session is served here when rbac is on this listener.
          signIn: auth && own?.plugins.includes('rbac') ? '/hub/session' : null,
          listener: request.listener,
        };
      },
    });

    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] satisfies HttpMethod[]) {
      ctx.routes.add({
        method,
        path: `${proxyPrefix}:listener/**`,
        permission: 'authenticated',
        throttle: 'light',
        summary: "Forward to a listener of this deployment (the UI's same-origin access to the fleet)",
        tags: ['console'],
        handler: (request) => forward(ctx, request),
      });
    }

    registerIngestRoutes(ctx, search);

    ctx.routes.static('/vendor', vendorDir(), { headers: consoleHeaders, immutable: false });
    ctx.routes.static('/', uiDir(), { spaFallback: true, headers: consoleHeaders });
  },
});
