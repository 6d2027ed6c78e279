import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { App } from '../../../runtime/app.js';
import { createLogger } from '../../../runtime/logger.js';
import { loadManifest, resolveManifest } from '../../../runtime/manifest.js';
import { repoRoot, tempDir } from '../../helpers/app.js';
import { bootstrapLine, call } from './helpers.js';

const file = path.join(repoRoot, 'manifests/workflow-platform.json');

describe('manifests/workflow-platform.json', () => {
  const dataDir = tempDir();
  const logs: Array<Record<string, unknown>> = [];
  let app: App;
  let base: string;
  beforeAll(async () => {
    const raw = JSON.parse(readFileSync(file, 'utf8'));
    const onPortZero = { ...raw, listeners: raw.listeners.map((l: object) => ({ ...l, port: 0 })) };
    const manifest = resolveManifest(onPortZero, { file, dir: path.dirname(file), dataDir });
    const destination = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n')) if (line.trim()) logs.push(JSON.parse(line));
        done();
      },
    });
    app = await App.create(manifest, { logger: createLogger({ level: 'info', destination }) });
    await app.start();
    base = app.url('hub');
  });
  afterAll(async () => {
    await app.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("declares seed 001's port 8787, the rbac plugin as auth provider and its data directory", () => {
    const manifest = loadManifest(file, { dataDir });
    expect(manifest.name).toBe('workflow-platform');
    expect(manifest.dataDir).toBe(path.resolve(dataDir));
    expect(loadManifest(file).dataDir).toBe(path.join(repoRoot, 'data/workflow-platform'));
    expect(manifest.listeners).toMatchObject([{ name: 'hub', host: '127.0.0.1', port: 8787, metricsPath: '/metrics', auth: true }]);
    expect(manifest.auth).toEqual({ provider: 'rbac' });
  });

  it('boots, prints the bootstrap key, and answers /hub/me with it', async () => {
    const key = bootstrapLine(logs)!.apiKey as string;
    const me = await call(base, 'GET', '/hub/me', { key });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      ok: true,
      tenant: 'default',
      homeTenant: 'default',
      user: { name: 'admin', roles: ['superadmin'] },
      key: { name: 'bootstrap', state: 'active' },
    });
    // What the manifest's plugins declare: rbac's and the workflow plugin's (seed 001's names).
    expect(me.body.permissions).toEqual(
      expect.arrayContaining([
        'system:read',
        'rbac:manage',
        'tenants:manage',
        'workflow:read',
        'workflow:deploy',
        'telemetry:read',
        'metrics:read',
        'api:invoke',
      ]),
    );
    expect(await call(base, 'GET', '/hub/me')).toMatchObject({ status: 401, body: { error: { code: 'missing_api_key' } } });
    expect((await fetch(`${base}/metrics`)).status).toBe(200);
    expect(await (await fetch(`${base}/health`)).json()).toMatchObject({ ok: true });
  });
});
