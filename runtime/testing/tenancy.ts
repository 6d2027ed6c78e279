import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { App } from '../app.js';
import { createLogger } from '../logger.js';
import { resolveManifest } from '../manifest.js';

/** An HTTP client acting as one tenant's administrator (an rbac key with the `admin` role). */
export interface TenantClient {
  readonly tenant: string;
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any }>;
}

/**
 * One kind of resource a plugin keeps, described by how a client creates, reads, lists, changes and
 * deletes it. `Ref` identifies one resource (an index name, a job id). Each function gets the
 * client of the tenant acting.
 */
export interface TenantResource<Ref = string> {
  name: string;
  /** Create a resource named after `label` (the same label is used in both tenants) and return its ref. */
  create(client: TenantClient, label: string): Promise<Ref>;
  /** Read it: the status code, and the body for the owner's checks. */
  read(client: TenantClient, ref: Ref): Promise<{ status: number; body?: unknown }>;
  /** The refs the tenant's list shows. */
  list(client: TenantClient): Promise<Ref[]>;
  /** Change it (optional when the resource cannot change). */
  update?(client: TenantClient, ref: Ref): Promise<{ status: number }>;
  remove(client: TenantClient, ref: Ref): Promise<{ status: number }>;
  /** What another tenant gets for read, update and remove: `not found`, never `forbidden`. @default [404] */
  hiddenStatuses?: number[];
}

export interface TenancyConformanceOptions {
  /** Listeners and plugins of the deployment under test; rbac, its hub listener and `auth` are added. */
  manifest: { listeners: Array<Record<string, unknown>>; plugins: Record<string, unknown>; [key: string]: unknown };
  /** The listener the resources' routes are on; default the first. */
  listener?: string;
  /** Where relative plugin `module` paths resolve from. */
  dir?: string;
}

const tenants = ['tenant-a', 'tenant-b'] as const;

/**
 * Drives a plugin's routes as two tenants and asserts that neither sees, lists, changes or deletes
 * the other's resources, and that the same name can exist in both. Every built-in plugin runs it
 * against its resources; a third-party plugin runs it the same way.
 */
export function tenancyConformance(label: string, options: TenancyConformanceOptions, resources: ReadonlyArray<TenantResource<any>>): void {
  describe(`${label} (tenancy conformance)`, () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-tenancy-'));
    const lines: string[] = [];
    let app: App;
    const clients = new Map<string, TenantClient>();

    beforeAll(async () => {
      const manifest = options.manifest;
      const plugins = { ...manifest.plugins, rbac: (manifest.plugins as Record<string, unknown>).rbac ?? {} };
      const listeners = [...manifest.listeners];
      if (!listeners.some((l) => (l.plugins as string[]).includes('rbac'))) listeners.push({ name: 'tenancy-hub', port: 0, plugins: ['rbac'] });
      const resolved = resolveManifest(
        { name: 'tenancy-conformance', ...manifest, listeners, plugins, auth: { provider: 'rbac' } },
        { file: '(tenancy conformance)', dir: options.dir ?? process.cwd(), dataDir },
      );
      const sink = new Writable({
        write(chunk, _encoding, done) {
          lines.push(...String(chunk).split('\n'));
          done();
        },
      });
      app = await App.create(resolved, { logger: createLogger({ level: 'info', destination: sink }) });
      await app.start();
      const superKey = lines.map((l) => /tsk_[0-9A-Za-z]+/.exec(l)?.[0]).find((k) => k !== undefined);
      if (!superKey) throw new Error('the rbac bootstrap key was not found in the start-up log');
      const hub = app.url(listeners.find((l) => (l.plugins as string[]).includes('rbac'))!.name as string);
      const base = app.url(options.listener ?? (listeners[0]!.name as string));
      for (const tenant of tenants) {
        const asSuper = { 'x-api-key': superKey, 'x-tenant': tenant, 'content-type': 'application/json' };
        const user = await fetch(`${hub}/hub/rbac/users`, {
          method: 'POST',
          headers: asSuper,
          body: JSON.stringify({ name: `${tenant}-admin`, roles: ['admin'] }),
        });
        if (user.status !== 201) throw new Error(`creating the ${tenant} admin: ${user.status} ${await user.text()}`);
        const userId = ((await user.json()) as { user: { id: string } }).user.id;
        const key = await fetch(`${hub}/hub/rbac/keys`, { method: 'POST', headers: asSuper, body: JSON.stringify({ name: `${tenant} admin key`, userId }) });
        if (key.status !== 201) throw new Error(`creating the ${tenant} key: ${key.status} ${await key.text()}`);
        const secret = ((await key.json()) as { secret: string }).secret;
        clients.set(tenant, {
          tenant,
          async call(method, p, body, headers = {}) {
            const res = await fetch(`${base}${p}`, {
              method,
              headers: { 'x-api-key': secret, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
              body: body === undefined ? undefined : JSON.stringify(body),
            });
            const text = await res.text();
            let parsed: unknown = text;
            try {
              parsed = text === '' ? undefined : JSON.parse(text);
            } catch {
              // not JSON: keep the text
            }
            return { status: res.status, body: parsed };
          },
        });
      }
    });
    afterAll(async () => {
      await app?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    for (const resource of resources) {
      const hidden = resource.hiddenStatuses ?? [404];
      describe(resource.name, () => {
        let ref: unknown;
        const a = (): TenantClient => clients.get('tenant-a')!;
        const b = (): TenantClient => clients.get('tenant-b')!;
        beforeAll(async () => {
          ref = await resource.create(a(), `conf-${resource.name.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}`);
        });

        it('another tenant cannot read it (not found, so its existence is not revealed)', async () => {
          expect((await resource.read(a(), ref)).status).toBe(200);
          expect(hidden).toContain((await resource.read(b(), ref)).status);
        });

        it("another tenant's list omits it", async () => {
          expect(await resource.list(a())).toContainEqual(ref);
          expect(await resource.list(b())).not.toContainEqual(ref);
        });

        if (resource.update) {
          it('another tenant cannot change it', async () => {
            expect(hidden).toContain((await resource.update!(b(), ref)).status);
          });
        }

        it('another tenant cannot delete it, and the owner still has it', async () => {
          expect(hidden).toContain((await resource.remove(b(), ref)).status);
          expect((await resource.read(a(), ref)).status).toBe(200);
        });

        it('the same name can exist in both tenants, each seeing its own', async () => {
          const label = `twin-${resource.name.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}`;
          const mine = await resource.create(a(), label);
          const theirs = await resource.create(b(), label);
          expect((await resource.read(b(), theirs)).status).toBe(200);
          expect(await resource.list(a())).toContainEqual(mine);
          expect((await resource.remove(b(), theirs)).status).toBeLessThan(300);
          expect((await resource.read(a(), mine)).status).toBe(200);
          expect((await resource.remove(a(), mine)).status).toBeLessThan(300);
        });
      });
    }
  });
}
