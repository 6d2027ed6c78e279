import { bootstrapLine, call, type Answer, type CallOptions } from '../rbac/helpers.js';
import { createTestApp, type TestApp } from '../../helpers/app.js';

export interface WfApp {
  t: TestApp;
  base: string;
  adminKey: string;
  call(method: string, path: string, options?: CallOptions): Promise<Answer>;
  keyWith(name: string, roles: string[], scopes?: string[]): Promise<string>;
  stop(): Promise<void>;
}

export async function startWorkflow(options: Record<string, unknown> = {}, dataDir?: string): Promise<WfApp> {
  const t = await createTestApp(
    {
      listeners: [{ name: 'hub', port: 0, plugins: ['rbac', 'workflow'] }],
      plugins: { rbac: {}, workflow: { options } },
      auth: { provider: 'rbac' },
    },
    { dataDir },
  );
  const adminKey = bootstrapLine(t.logs)!.apiKey as string;
  const base = t.url('hub');
  const app: WfApp = {
    t,
    base,
    adminKey,
    call: (method, path, o) => call(base, method, path, { key: adminKey, ...o }),
    async keyWith(name, roles, scopes) {
      const user = await app.call('POST', '/hub/rbac/users', { body: { name, roles } });
      const key = await app.call('POST', '/hub/rbac/keys', { body: { name: `${name}-key`, userId: user.body.user.id, ...(scopes ? { scopes } : {}) } });
      if (key.status !== 201) throw new Error(JSON.stringify(key.body));
      return key.body.secret as string;
    },
    stop: () => t.stop(),
  };
  return app;
}
