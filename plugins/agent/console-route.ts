import type { PluginContext } from 'tessera-runtime/plugin';
import { serveUi } from '../ui-kit/serve.js';
import type { AgentOptions } from './options.js';

/**
 * The agent console: the browser UI of this listener (docs/agent-api.md, "Agent console"), on the
 * control plane's foundation (plugins/ui-kit). `GET /api/v1/console` tells the page, before any
 * sign-in, whether the listener enforces auth and where to sign in; the page itself and its
 * scripts are mounted at `/` with the single-page fallback, after every route, so no
 * `/api/v1/*` route is shadowed.
 */
export function registerConsole(ctx: PluginContext<AgentOptions>): void {
  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/console',
    permission: 'public',
    throttle: 'light',
    tags: ['agent: console'],
    summary: 'What the agent console needs before sign-in: whether this listener enforces auth, and where to sign in',
    handler: (request) => {
      const own = ctx.app.listeners.find((l) => l.name === request.listener);
      const auth = own?.auth ?? false;
      return {
        name: ctx.app.name,
        version: ctx.version,
        auth,
        // rbac's cookie session is served here when rbac is on this listener.
        signIn: auth && own?.plugins.includes('rbac') ? '/hub/session' : null,
        listener: request.listener,
      };
    },
  });
  serveUi(ctx, 'plugins/agent/ui', import.meta.url);
}
