/** The hub UI: `GET /hub/ui` (what the page needs before sign-in) and the page itself at `/`. */
import type { PluginContext } from 'tessera-runtime/plugin';
import { serveUi } from '../ui-kit/serve.js';
import type { WorkflowOptions } from './options.js';

export function registerUi(ctx: PluginContext<WorkflowOptions>): void {
  ctx.routes.add({
    method: 'GET',
    path: '/hub/ui',
    permission: 'public',
    throttle: 'light',
    summary: 'What the hub UI needs before sign-in: whether this listener enforces auth, and whether rbac serves sign-in here',
    tags: ['hub'],
    handler: (request) => {
      const own = ctx.app.listeners.find((l) => l.name === request.listener);
      const rbac = own?.plugins.includes('rbac') ?? false;
      return {
        name: ctx.app.name,
        version: ctx.version,
        auth: own?.auth ?? false,
        // rbac's /hub/session: sign-in with a key or a user name and password.
        signIn: rbac ? '/hub/session' : null,
        rbac,
        listener: request.listener,
        protectInvoke: ctx.config.protectInvoke,
      };
    },
  });
  if (ctx.config.ui) serveUi(ctx, 'plugins/workflow/ui', import.meta.url);
}
