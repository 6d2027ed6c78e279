import { definePlugin, type HttpMethod } from 'tessera-runtime/plugin';
import { IMAGE_METADATA_SERVICE, SEARCH_SERVICE } from '../search/index.js';
import { errors } from './errors.js';
import { registerIngestRoutes } from './ingest-routes.js';
import { registerNextRuns } from './next-runs.js';
import { consoleOptions } from './options.js';
import { forward, proxyPrefix } from './proxy.js';
import { serveUi } from '../ui-kit/serve.js';

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

    registerNextRuns(ctx);
    registerIngestRoutes(ctx, search, ctx.container.resolve(IMAGE_METADATA_SERVICE));

    serveUi(ctx, 'plugins/console/ui', import.meta.url);
  },
});
