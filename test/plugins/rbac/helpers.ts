import { createTestApp, json, type TestApp } from '../../helpers/app.js';

export interface Answer {
  status: number;
  body: any;
  headers: Headers;
}

export interface CallOptions {
  key?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface RbacApp {
  t: TestApp;
  /** The bootstrap key (superadmin of tenant "default"), read from the start-up log. */
  adminKey: string;
  call(method: string, path: string, options?: CallOptions): Promise<Answer>;
  /** A user with `roles` in `tenant` (default: the admin's) and a key acting for it with all its permissions. */
  userWithKey(
    name: string,
    roles: string[],
    options?: { tenant?: string; scopes?: string[]; expiresAt?: string },
  ): Promise<{ user: any; key: any; secret: string }>;
  stop(): Promise<void>;
}

export const hubListener = { name: 'hub', port: 0, plugins: ['rbac'] };

/** The log line bootstrap writes, if any. */
export function bootstrapLine(logs: Array<Record<string, unknown>>): Record<string, any> | undefined {
  return logs.find((l) => typeof l.apiKey === 'string');
}

export async function call(base: string, method: string, path: string, options: CallOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== undefined) headers['x-api-key'] = options.key;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  return { status: res.status, body: res.status === 204 ? null : await json(res), headers: res.headers };
}

export async function startRbac(input: { options?: Record<string, unknown>; manifest?: Record<string, unknown>; dataDir?: string } = {}): Promise<RbacApp> {
  const { plugins, ...manifest } = (input.manifest ?? {}) as { plugins?: Record<string, unknown> };
  const t = await createTestApp(
    {
      listeners: [hubListener],
      // The real search and workflow plugins, mounted on no listener: their declared permissions are
      // the deployment's, which keys and roles are scoped to. An entry set to undefined leaves one out.
      plugins: Object.fromEntries(
        Object.entries({ rbac: input.options ? { options: input.options } : {}, search: {}, workflow: {}, ...plugins }).filter(([, v]) => v !== undefined),
      ),
      auth: { provider: 'rbac' },
      ...manifest,
    },
    { dataDir: input.dataDir },
  );
  const line = bootstrapLine(t.logs);
  const adminKey = line?.apiKey as string;
  const base = t.url('hub');
  const rbac: RbacApp = {
    t,
    adminKey,
    call: (method, path, options) => call(base, method, path, { key: adminKey, ...options }),
    async userWithKey(name, roles, options = {}) {
      const headers = options.tenant ? { 'x-tenant': options.tenant } : undefined;
      const created = await rbac.call('POST', '/hub/rbac/users', { headers, body: { name, roles } });
      if (created.status !== 201) throw new Error(`creating user ${name}: ${JSON.stringify(created.body)}`);
      const body: Record<string, unknown> = { name: `${name} key`, userId: created.body.user.id };
      if (options.scopes) body.scopes = options.scopes;
      if (options.expiresAt) body.expiresAt = options.expiresAt;
      const key = await rbac.call('POST', '/hub/rbac/keys', { headers, body });
      if (key.status !== 201) throw new Error(`creating key for ${name}: ${JSON.stringify(key.body)}`);
      return { user: created.body.user, key: key.body.key, secret: key.body.secret };
    },
    stop: () => t.stop(),
  };
  return rbac;
}
