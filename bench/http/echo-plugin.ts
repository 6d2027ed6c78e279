import { definePlugin, z } from '../../runtime/plugin.js';

/** The small JSON POST the HTTP bench measures: validate a body and echo it. */
export default definePlugin({
  name: 'bench-echo',
  version: '1.0.0',
  setup(ctx) {
    ctx.routes.add({
      method: 'POST',
      path: '/echo',
      permission: 'public',
      body: z.object({ name: z.string(), count: z.number().int(), tags: z.array(z.string()) }),
      handler: ({ body }) => ({ echo: body }),
    });
  },
});
